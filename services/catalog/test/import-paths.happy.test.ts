import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { openServiceDatabase, type Db } from '@acs/db';
import type { CatalogEntryInput } from '@acs/contracts';
import { CATALOG_MIGRATIONS_DIR } from '../src/service.js';
import { importCatalog } from '../src/domain/import-catalog.js';
import { buildEntry, silentLogger, startCatalog, uniqueBrand, type CatalogHarness } from './harness.js';
import { countsExact, postImport } from './import-helpers.js';

/**
 * The two ways a batch reaches the table (import-repository.ts): COPY text into a temporary table
 * on PostgreSQL, one JSON parameter on PGlite. Both must store exactly what was sent, including
 * the characters that COPY's text format treats specially.
 */
const awkward = ['tab\there', 'new\nline', 'carriage\rreturn', 'back\\slash', '\\N', 'quote "q" \'s\'', 'tëxt ✓ \u{1F3B5}', '\\t literal'];

function awkwardEntries(brand: string): CatalogEntryInput[] {
  return awkward.map((text, i) =>
    buildEntry({
      brand,
      model: `M${i} ${text}`,
      specs: { chip: `Chip ${text}`, maxSampleRateHz: 192000, maxBitDepth: 24, dsd: null, inputs: ['usb'], outputs: ['rca'] },
    }),
  );
}

async function stored(db: Db, brand: string): Promise<Array<Record<string, unknown>>> {
  const { rows } = await db.query<Record<string, unknown>>(
    `SELECT type, brand, model, price::float8 AS price, currency, release_year AS "releaseYear", specs
       FROM catalog_entries WHERE lower(brand) = lower($1) ORDER BY model`,
    [brand],
  );
  return rows;
}

const sortedByModel = (entries: CatalogEntryInput[]) => [...entries].sort((a, b) => (a.model < b.model ? -1 : a.model > b.model ? 1 : 0));

describe('import on PostgreSQL (COPY into a temporary table)', () => {
  let catalog: CatalogHarness;
  beforeAll(async () => {
    catalog = await startCatalog({ seed: false });
  });
  afterAll(async () => {
    await catalog?.stop();
  });

  it('stores tabs, newlines, backslashes and \\N in text and specs exactly as sent, and updates them in place', async () => {
    const brand = uniqueBrand('Copy');
    const entries = awkwardEntries(brand);
    expect(await (await postImport(catalog, entries)).json()).toEqual({ inserted: entries.length, updated: 0, total: entries.length });
    expect(await stored(catalog.db, brand)).toEqual(sortedByModel(entries));

    const changed = entries.map((entry) => ({ ...entry, price: 99.5 }));
    expect(await (await postImport(catalog, changed)).json()).toEqual({ inserted: 0, updated: entries.length, total: entries.length });
    expect(await stored(catalog.db, brand)).toEqual(sortedByModel(changed));
    expect(await countsExact(catalog.db)).toBe(true);
    // The staging table belongs to the import's transaction: nothing of it stays on the connection.
    const { rows } = await catalog.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_class WHERE relname = 'catalog_import_rows'`);
    expect(rows[0]!.n).toBe(0);
  });
});

describe('import on PGlite (npm start: one JSON parameter)', () => {
  let dataDir: string;
  let db: Db;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'catalog-import-pglite-'));
    db = await openServiceDatabase({ service: 'catalog', dataDir, migrationsDir: CATALOG_MIGRATIONS_DIR, logger: silentLogger() });
  });
  afterAll(async () => {
    await db?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('inserts, then updates, the same awkward entries with exact counts and counters', async () => {
    expect(db.kind).toBe('pglite');
    const brand = uniqueBrand('Pglite');
    const entries = awkwardEntries(brand);
    expect(await importCatalog(db, entries, false)).toEqual({ inserted: entries.length, updated: 0, total: entries.length });
    expect(await stored(db, brand)).toEqual(sortedByModel(entries));
    expect(await importCatalog(db, entries, true)).toEqual({ inserted: 0, updated: entries.length, total: entries.length });

    const changed = entries.map((entry) => ({ ...entry, releaseYear: 2001 }));
    expect(await importCatalog(db, changed, false)).toEqual({ inserted: 0, updated: entries.length, total: entries.length });
    expect(await stored(db, brand)).toEqual(sortedByModel(changed));
    expect(await countsExact(db)).toBe(true);
  });
});
