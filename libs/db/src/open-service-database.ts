import { join } from 'node:path';
import type { Logger } from '@acs/logger';
import type { Db } from './db.js';
import { migrate } from './migrations/migrate.js';
import { openDatabase } from './open-database.js';
import { carryOverLegacyFolder } from './pglite/legacy-folder.js';
import { openSharedPglite } from './pglite/shared-pglite.js';

export interface ServiceDatabaseOptions {
  /** The owning service; names its schema in the embedded database. */
  service: string;
  /** The service's own PostgreSQL database (DATABASE_URL); unset or empty: its schema of the PGlite under `dataDir/pglite`. */
  url?: string | undefined;
  dataDir: string;
  /** The service's migrations, applied first; null: opened as it is (an operator's CLI reading another service's data). */
  migrationsDir: string | null;
  logger: Logger;
  /** PostgreSQL pool size (default 10). */
  poolSize?: number;
  /** How long to wait for a PostgreSQL that is not reachable yet (a service's start); default 0: fail at once (the CLIs). */
  waitMs?: number;
}

/** Where the embedded database of a data folder lives (one PGlite, a schema per service). */
const embeddedDatabaseFolder = (dataDir: string): string => join(dataDir, 'pglite');

/**
 * Opens (the first time: creates) the embedded database of a data folder ahead of the services, so
 * `npm start` can say that this, not a service, is what the first start waits for. Services then
 * share the instance; close the handle once they hold their own.
 */
export function openEmbeddedDatabase(dataDir: string, logger: Logger): Promise<Db> {
  return openSharedPglite(embeddedDatabaseFolder(dataDir), 'keys', logger);
}

/**
 * A service's database as its start-up and its CLI open it: PostgreSQL when a URL is given, else
 * the service's own schema (and role) in the one embedded PGlite under DATA_DIR/pglite, shared by
 * every service of the process; migrated. Data an older version kept in DATA_DIR/<service> is
 * carried over once. A failure closes it again, so a failed start keeps no pool open.
 */
export async function openServiceDatabase(options: ServiceDatabaseOptions): Promise<Db> {
  const { service, url, dataDir, migrationsDir, logger, poolSize, waitMs } = options;
  const db = url
    ? await openDatabase({ url, logger, poolSize, waitMs })
    : await openSharedPglite(embeddedDatabaseFolder(dataDir), service, logger);
  if (migrationsDir === null) return db;
  try {
    await migrate(db, migrationsDir, logger);
    if (!url) await carryOverLegacyFolder(dataDir, service, migrationsDir, logger);
  } catch (err) {
    await db.close().catch((closeErr: unknown) => logger.error({ err: closeErr }, 'could not close the database after a failed migration'));
    throw err;
  }
  return db;
}

/** The fields of a service's parsed config (serviceFields in libs/config) its database is opened from. */
export interface ServiceDatabaseConfig {
  DATABASE_URL?: string | undefined;
  DATA_DIR: string;
  DB_POOL_SIZE?: number;
  /** How long the start waits for an unreachable PostgreSQL (serviceFields: 45 s, within k8s' startupProbe minute). */
  DATABASE_WAIT_SECONDS?: number;
}

/** openServiceDatabase as every service's start-up calls it: from its config, with its own migrations. */
export function openConfiguredDatabase(service: string, config: ServiceDatabaseConfig, migrationsDir: string, logger: Logger): Promise<Db> {
  return openServiceDatabase({
    service,
    url: config.DATABASE_URL,
    dataDir: config.DATA_DIR,
    migrationsDir,
    logger,
    ...(config.DB_POOL_SIZE === undefined ? {} : { poolSize: config.DB_POOL_SIZE }),
    ...(config.DATABASE_WAIT_SECONDS === undefined ? {} : { waitMs: config.DATABASE_WAIT_SECONDS * 1000 }),
  });
}

/** Where a start-up registers what it opened, to close it in reverse order (CloseStack in libs/http). */
export interface ClosesOnStop {
  defer(name: string, step: () => unknown): void;
}

/**
 * openConfiguredDatabase inside a service's start-up (startWithCloseStack): the pool is registered
 * to close with the rest, so a later failed step or the service's close() never leaves it open.
 */
export async function openConfiguredDatabaseIn(
  stack: ClosesOnStop,
  service: string,
  config: ServiceDatabaseConfig,
  migrationsDir: string,
  logger: Logger,
): Promise<Db> {
  const db = await openConfiguredDatabase(service, config, migrationsDir, logger);
  stack.defer('the database', () => db.close());
  return db;
}
