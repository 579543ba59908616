import { readFile } from 'node:fs/promises';
import { describe, it, expect, afterEach } from '@jest/globals';
import { captureLogger, openTestDb, realCount, startCatalog, type CatalogHarness } from './harness.js';

const SEED = JSON.parse(await readFile(new URL('../seed/products.json', import.meta.url), 'utf8')) as Array<{
  brand: string;
  model: string;
}>;

let catalog: CatalogHarness | undefined;

afterEach(async () => {
  await catalog?.stop();
  catalog = undefined;
});

describe('the bundled seed', () => {
  it('is loaded on the first start: every product, 60+ entries from 10+ brands, logged once', async () => {
    const { logger, lines } = captureLogger();
    catalog = await startCatalog({ logger });
    const {
      rows: [stats],
    } = await catalog.db.query<{ entries: number; brands: number }>(
      'SELECT count(*) AS entries, count(DISTINCT lower(brand)) AS brands FROM catalog_entries',
    );
    expect(stats!.entries).toBe(SEED.length);
    expect(stats!.entries).toBeGreaterThanOrEqual(60);
    expect(stats!.brands).toBeGreaterThanOrEqual(10);
    expect(lines.filter((line) => line.msg === 'catalog seeded')).toEqual([expect.objectContaining({ inserted: SEED.length })]);
    const response = await catalog.get('/api/Dac');
    expect(await response.json()).toMatchObject({ total: SEED.length });
  });

  it('is not inserted again when the service restarts on the same database', async () => {
    const { logger, lines } = captureLogger();
    catalog = await startCatalog({ logger });
    const { rows: before } = await catalog.db.query<{ id: number }>('SELECT id FROM catalog_entries ORDER BY id');
    await catalog.restart();
    const { rows: after } = await catalog.db.query<{ id: number }>('SELECT id FROM catalog_entries ORDER BY id');
    expect(after).toEqual(before);
    expect(lines.filter((line) => line.msg === 'catalog seeded')).toHaveLength(1);
  });

  it('does not bring deleted products back on a restart, and the totals follow', async () => {
    catalog = await startCatalog();
    const { rowCount } = await catalog.db.query("DELETE FROM catalog_entries WHERE lower(brand) = 'topping'");
    expect(rowCount).toBeGreaterThan(0);
    const remaining = await realCount(catalog.db);
    await catalog.stopService();
    const direct = await openTestDb(catalog.database);
    try {
      expect(await realCount(direct)).toBe(remaining);
    } finally {
      await direct.close();
    }
    await catalog.restart();
    expect(await realCount(catalog.db, 'Topping')).toBe(0);
    expect(await realCount(catalog.db)).toBe(remaining);
    const body = (await (await catalog.get('/api/Dac?brand=topping')).json()) as { total: number; items: unknown[] };
    expect(body).toMatchObject({ total: 0, items: [] });
    const all = (await (await catalog.get('/api/Dac')).json()) as { total: number };
    expect(all.total).toBe(remaining);
  });

  it('does not come back even when every product was deleted', async () => {
    catalog = await startCatalog();
    await catalog.db.query('DELETE FROM catalog_entries');
    await catalog.restart();
    expect(await realCount(catalog.db)).toBe(0);
    expect(await (await catalog.get('/api/Dac')).json()).toEqual({
      items: [],
      page: 1,
      pageSize: 20,
      total: 0,
      totalPages: 0,
      nextCursor: null,
    });
  });

  it('is skipped with CATALOG_SEED=false: the catalog starts empty', async () => {
    catalog = await startCatalog({ seed: false });
    expect(await realCount(catalog.db)).toBe(0);
    expect(await (await catalog.get('/api/Dac')).json()).toMatchObject({ items: [], total: 0, totalPages: 0, nextCursor: null });
  });
});
