import { randomBytes } from 'node:crypto';
import type { Logger } from '@acs/logger';
import { openDatabase, type Db } from '@acs/db';
import { createTestDatabase, signedFetch, type TestDatabase } from '@acs/testing';
import type { CatalogEntryInput } from '@acs/contracts';
import { catalogConfigSchema, startCatalogService, type CatalogService } from '../src/index.js';
import { captureLogger as captureLines, silentLogger as silent, type LogLine } from '@acs/testing';

export type { LogLine };
export const silentLogger = (): Logger => silent('catalog-test');
export const captureLogger = (name = 'catalog-test') => captureLines(name, 'info');

export const INTERNAL_SECRET = `catalog-test-secret-${randomBytes(16).toString('hex')}`;

export interface CatalogHarness {
  database: TestDatabase;
  service: CatalogService;
  url: string;
  /** The service's own pool: direct SQL on the same database, as an operator would run it. */
  db: Db;
  get(pathAndQuery: string, headers?: Record<string, string>): Promise<Response>;
  /** Stops the service only; the database stays for a restart. */
  stopService(): Promise<void>;
  /** Starts the service again on the same database (a restart). */
  restart(): Promise<void>;
  /** Stops the service and drops the database. */
  stop(): Promise<void>;
}

export interface StartOptions {
  seed?: boolean;
  logger?: Logger;
  database?: TestDatabase;
  /** More configuration variables (CATALOG_MAX_AGE_SECONDS, CATALOG_DEEP_OFFSET, ...). */
  env?: Record<string, string>;
}

async function start(database: TestDatabase, seed: boolean, logger: Logger, env: Record<string, string> = {}): Promise<CatalogService> {
  const config = catalogConfigSchema.parse({
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: database.url,
    INTERNAL_SECRET,
    CATALOG_SEED: seed ? 'true' : 'false',
    DB_POOL_SIZE: '4',
    ...env,
  });
  return startCatalogService(config, logger);
}

/** A catalog service on a fresh database of its own (seeded unless told otherwise). */
export async function startCatalog(options: StartOptions = {}): Promise<CatalogHarness> {
  const database = options.database ?? (await createTestDatabase('catalog'));
  const seed = options.seed ?? true;
  const logger = options.logger ?? silentLogger();
  let service: CatalogService | null = await start(database, seed, logger, options.env).catch(async (err: unknown) => {
    if (!options.database) await database.drop();
    throw err;
  });
  const harness: CatalogHarness = {
    database,
    get service() {
      if (!service) throw new Error('the catalog service is stopped');
      return service;
    },
    get url() {
      return harness.service.server.url;
    },
    get db() {
      return harness.service.db;
    },
    get: (pathAndQuery, headers) =>
      signedFetch(harness.url, INTERNAL_SECRET, 'GET', pathAndQuery, { audience: 'catalog', ...(headers ? { headers } : {}) }),
    async stopService() {
      const running = service;
      service = null;
      await running?.close();
    },
    async restart() {
      await harness.stopService();
      service = await start(database, seed, logger, options.env);
    },
    async stop() {
      await harness.stopService();
      await database.drop();
    },
  };
  return harness;
}

/** A connection of the test's own to a database (for checks while the service is stopped). */
export function openTestDb(database: TestDatabase, poolSize = 2): Promise<Db> {
  return openDatabase({ url: database.url, logger: silentLogger(), poolSize });
}

/** A brand no seed product and no other test uses. */
export function uniqueBrand(prefix = 'Brand'): string {
  return `${prefix} ${randomBytes(4).toString('hex')}`;
}

let modelCounter = 0;

/** A valid DAC entry with a unique model; override any field. */
export function buildEntry(overrides: Partial<CatalogEntryInput> = {}): CatalogEntryInput {
  modelCounter += 1;
  return {
    type: 'dac',
    brand: uniqueBrand(),
    model: `Model ${modelCounter}-${randomBytes(3).toString('hex')}`,
    price: 199.99,
    currency: 'USD',
    releaseYear: 2022,
    specs: { chip: 'ESS ES9038Q2M', maxSampleRateHz: 384000, maxBitDepth: 32, dsd: 'DSD256', inputs: ['usb', 'optical'], outputs: ['rca'] },
    ...overrides,
  } as CatalogEntryInput;
}

/** Inserts entries directly in SQL (as an operator or an import would); returns their ids in order. */
export async function insertEntries(db: Db, entries: readonly CatalogEntryInput[]): Promise<number[]> {
  const { rows } = await db.query<{ id: number }>(
    `INSERT INTO catalog_entries (type, brand, model, price, currency, release_year, specs)
     SELECT e.type, e.brand, e.model, e.price, e.currency, e."releaseYear", e.specs
       FROM jsonb_to_recordset($1::jsonb) AS e(type text, brand text, model text, price numeric, currency text, "releaseYear" smallint, specs jsonb)
     RETURNING id`,
    [JSON.stringify(entries)],
  );
  return rows.map((row) => row.id).sort((a, b) => a - b);
}

/** The true number of rows, for comparing with the trigger-kept counts. */
export async function realCount(db: Db, brand?: string): Promise<number> {
  const { rows } =
    brand === undefined
      ? await db.query<{ n: number }>('SELECT count(*) AS n FROM catalog_entries')
      : await db.query<{ n: number }>('SELECT count(*) AS n FROM catalog_entries WHERE lower(brand) = lower($1)', [brand]);
  return rows[0]!.n;
}

/** The trigger-kept count ('' is the total); 0 when there is no row. */
export async function keptCount(db: Db, brand?: string): Promise<number> {
  const { rows } = await db.query<{ entries: number }>('SELECT entries FROM catalog_counts WHERE brand_key = lower($1)', [brand ?? '']);
  return rows[0]?.entries ?? 0;
}

export interface CatalogPageBody {
  items: Array<{ id: number; brand: string; [key: string]: unknown }>;
  page: number | null;
  pageSize: number;
  total: number;
  totalPages: number;
  nextCursor: string | null;
}

export interface ErrorBody {
  error: string;
  message: string;
  requestId?: string;
  details?: Array<{ path: string; message: string }>;
}
