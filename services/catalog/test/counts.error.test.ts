import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { migrate, openDatabase, sqlStateOf } from '@acs/db';
import { createTestDatabase } from '@acs/testing';
import { CATALOG_MIGRATIONS_DIR } from '../src/index.js';
import {
  buildEntry,
  insertEntries,
  keptCount,
  realCount,
  silentLogger,
  startCatalog,
  uniqueBrand,
  type CatalogHarness,
} from './harness.js';

let catalog: CatalogHarness;

beforeAll(async () => {
  catalog = await startCatalog();
});

afterAll(async () => {
  await catalog?.stop();
});

describe('rows that would corrupt the counts', () => {
  it.each([[''], ['   ']])('a blank brand (%j) is refused, so it can never be counted as the total', async (brand) => {
    const total = await keptCount(catalog.db);
    const err = await insertEntries(catalog.db, [buildEntry({ brand })]).catch((e: unknown) => e);
    expect(sqlStateOf(err)).toBe('23514');
    expect((err as Error).message).toContain('catalog_entries_brand_not_blank');
    expect(await keptCount(catalog.db)).toBe(total);
    expect(total).toBe(await realCount(catalog.db));
  });

  it('an update to a blank brand is refused as well', async () => {
    const [id] = await insertEntries(catalog.db, [buildEntry({ brand: uniqueBrand('Blanked') })]);
    const err = await catalog.db.query("UPDATE catalog_entries SET brand = '' WHERE id = $1", [id]).catch((e: unknown) => e);
    expect(sqlStateOf(err)).toBe('23514');
    expect(await keptCount(catalog.db)).toBe(await realCount(catalog.db));
  });
});

describe('migration 002 on a database that ran only 001', () => {
  it('recomputes counters that drifted (TRUNCATE, blank brands) before the fix', async () => {
    const database = await createTestDatabase('catalog_upgrade');
    const onlyFirst = await mkdtemp(join(tmpdir(), 'catalog-001-'));
    const db = await openDatabase({ url: database.url, logger: silentLogger(), poolSize: 2 });
    try {
      await copyFile(join(CATALOG_MIGRATIONS_DIR, '001_create_catalog.sql'), join(onlyFirst, '001_create_catalog.sql'));
      await migrate(db, onlyFirst, silentLogger());
      await insertEntries(db, [buildEntry({ brand: 'Old' }), buildEntry({ brand: 'Old' })]);
      await db.query('TRUNCATE catalog_entries');
      await insertEntries(db, [buildEntry({ brand: 'Kept' })]);
      expect(await keptCount(db)).toBe(3); // the drift 002 repairs
      await db.close();

      const upgraded = await startCatalog({ database, seed: false });
      try {
        expect(await keptCount(upgraded.db)).toBe(1);
        expect(await keptCount(upgraded.db, 'Old')).toBe(0);
        expect(await keptCount(upgraded.db, 'Kept')).toBe(1);
        expect(await (await upgraded.get('/api/Dac')).json()).toMatchObject({ total: 1 });
        expect((await fetch(`${upgraded.url}/readyz`)).status).toBe(200);
      } finally {
        await upgraded.stopService();
      }
    } finally {
      await db.close();
      await rm(onlyFirst, { recursive: true, force: true });
      await database.drop();
    }
  });

  it('stops the start, naming the constraint, when a blank brand is already stored', async () => {
    const database = await createTestDatabase('catalog_upgrade');
    const onlyFirst = await mkdtemp(join(tmpdir(), 'catalog-001-'));
    const db = await openDatabase({ url: database.url, logger: silentLogger(), poolSize: 2 });
    try {
      await copyFile(join(CATALOG_MIGRATIONS_DIR, '001_create_catalog.sql'), join(onlyFirst, '001_create_catalog.sql'));
      await migrate(db, onlyFirst, silentLogger());
      await insertEntries(db, [buildEntry({ brand: '' })]);
      const err = await startCatalog({ database, seed: false }).catch((e: unknown) => e);
      expect((err as Error).message).toMatch(/002_catalog_counts_integrity\.sql failed.*catalog_entries_brand_not_blank/);
    } finally {
      await db.close();
      await rm(onlyFirst, { recursive: true, force: true });
      await database.drop();
    }
  });
});
