import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { buildEntry, insertEntries, keptCount, openTestDb, realCount, startCatalog, uniqueBrand, type CatalogHarness } from './harness.js';

let catalog: CatalogHarness;

beforeAll(async () => {
  catalog = await startCatalog();
});

afterAll(async () => {
  await catalog?.stop();
});

/** Every trigger-kept counter equals a real count(*), for the total and for every brand. */
async function expectAllCountsExact(): Promise<void> {
  const { rows: real } = await catalog.db.query<{ brand_key: string; entries: number }>(
    `SELECT lower(brand) AS brand_key, count(*) AS entries FROM catalog_entries GROUP BY 1
     UNION ALL SELECT '', count(*) FROM catalog_entries ORDER BY 1`,
  );
  const { rows: kept } = await catalog.db.query<{ brand_key: string; entries: number }>(
    'SELECT brand_key, entries FROM catalog_counts WHERE entries <> 0 OR brand_key = $1 ORDER BY 1',
    [''],
  );
  expect(kept).toEqual(real);
}

async function apiTotal(brand?: string): Promise<number> {
  const response = await catalog.get(brand === undefined ? '/api/Dac' : `/api/Dac?brand=${encodeURIComponent(brand)}`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { total: number }).total;
}

describe('trigger-maintained counts', () => {
  it('are exact for the seeded catalog', async () => {
    await expectAllCountsExact();
  });

  it('follow single-row and multi-row inserts done in SQL', async () => {
    const a = uniqueBrand('CountA');
    const b = uniqueBrand('CountB');
    await insertEntries(catalog.db, [buildEntry({ brand: a })]);
    await insertEntries(catalog.db, [buildEntry({ brand: a }), buildEntry({ brand: a.toUpperCase() }), buildEntry({ brand: b })]);
    expect(await keptCount(catalog.db, a)).toBe(3);
    expect(await keptCount(catalog.db, b)).toBe(1);
    expect(await apiTotal(a)).toBe(3);
    expect(await apiTotal()).toBe(await realCount(catalog.db));
    await expectAllCountsExact();
  });

  it('move with an update that changes the brand, and ignore updates that do not', async () => {
    const from = uniqueBrand('From');
    const to = uniqueBrand('To');
    const ids = await insertEntries(catalog.db, [buildEntry({ brand: from }), buildEntry({ brand: from }), buildEntry({ brand: from })]);
    const total = await realCount(catalog.db);

    await catalog.db.query('UPDATE catalog_entries SET brand = $1 WHERE id = ANY($2::int[])', [to, ids.slice(0, 2)]);
    expect(await keptCount(catalog.db, from)).toBe(1);
    expect(await keptCount(catalog.db, to)).toBe(2);
    expect(await apiTotal(from)).toBe(1);
    expect(await apiTotal(to)).toBe(2);

    // A change of case only, and a change of another column, move nothing.
    await catalog.db.query('UPDATE catalog_entries SET brand = upper(brand), price = price + 5 WHERE id = ANY($1::int[])', [ids]);
    expect(await keptCount(catalog.db, from)).toBe(1);
    expect(await keptCount(catalog.db, to)).toBe(2);
    expect(await apiTotal()).toBe(total);

    // Swapping two brands in one statement: the per-brand sums cancel out exactly.
    await catalog.db.query(
      'UPDATE catalog_entries SET brand = CASE WHEN lower(brand) = lower($1) THEN $2 ELSE $1 END WHERE id = ANY($3::int[])',
      [from, to, ids],
    );
    expect(await keptCount(catalog.db, from)).toBe(2);
    expect(await keptCount(catalog.db, to)).toBe(1);
    expect(await apiTotal()).toBe(total);
    await expectAllCountsExact();
  });

  it('follow deletes done in SQL, down to zero', async () => {
    const brand = uniqueBrand('Gone');
    const ids = await insertEntries(catalog.db, [buildEntry({ brand }), buildEntry({ brand }), buildEntry({ brand })]);
    const total = await realCount(catalog.db);
    await catalog.db.query('DELETE FROM catalog_entries WHERE id = $1', [ids[0]]);
    expect(await keptCount(catalog.db, brand)).toBe(2);
    await catalog.db.query('DELETE FROM catalog_entries WHERE lower(brand) = lower($1)', [brand]);
    expect(await keptCount(catalog.db, brand)).toBe(0);
    expect(await apiTotal(brand)).toBe(0);
    expect(await apiTotal()).toBe(total - 3);
    await expectAllCountsExact();
  });

  it('are left untouched by a transaction that rolls back', async () => {
    const brand = uniqueBrand('Rolled');
    const total = await realCount(catalog.db);
    await expect(
      catalog.db.transaction(async (tx) => {
        await tx.query(
          `INSERT INTO catalog_entries (type, brand, model, price, release_year, specs) VALUES ('dac', $1, 'X1', 10, 2020, '{}'::jsonb)`,
          [brand],
        );
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(await keptCount(catalog.db, brand)).toBe(0);
    expect(await apiTotal()).toBe(total);
    await expectAllCountsExact();
  });

  it('stay exact, without deadlocks, under concurrent writers touching the same brands', async () => {
    // A pool of its own, so that many statements really run at the same time.
    const writers = await openTestDb(catalog.database, 16);
    const brands: string[] = [];
    try {
      // Each round: a brand new to the counters, written by 20 statements at once, each also
      // bringing a brand of its own (the mix that made 001's trigger lock counters in varying order).
      for (let round = 0; round < 30; round++) {
        const busy = uniqueBrand('Busy');
        brands.push(busy);
        const results = await Promise.allSettled(
          Array.from({ length: 20 }, () => insertEntries(writers, [buildEntry({ brand: busy }), buildEntry()])),
        );
        const failures = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => String(r.reason));
        expect(failures).toEqual([]);
        expect(await keptCount(catalog.db, busy)).toBe(20);
      }
      const [first, second] = brands as [string, string];
      const moved = await Promise.allSettled([
        writers.query(
          'DELETE FROM catalog_entries WHERE id IN (SELECT id FROM catalog_entries WHERE lower(brand) = lower($1) ORDER BY id LIMIT 5)',
          [first],
        ),
        writers.query(
          'UPDATE catalog_entries SET brand = $1 WHERE id IN (SELECT id FROM catalog_entries WHERE lower(brand) = lower($2) ORDER BY id DESC LIMIT 3)',
          [first, second],
        ),
        insertEntries(writers, [buildEntry({ brand: first }), buildEntry({ brand: second })]),
      ]);
      expect(moved.filter((r) => r.status === 'rejected')).toEqual([]);
      expect(await keptCount(catalog.db, first)).toBe(20 - 5 + 3 + 1);
      expect(await keptCount(catalog.db, second)).toBe(20 - 3 + 1);
      await expectAllCountsExact();
    } finally {
      await writers.close();
    }
  });

  it('are reset by TRUNCATE, and count again from zero afterwards', async () => {
    const other = await startCatalog();
    try {
      expect(await keptCount(other.db)).toBeGreaterThan(0);
      await other.db.query('TRUNCATE catalog_entries');
      expect(await keptCount(other.db)).toBe(0);
      expect(await keptCount(other.db, 'Topping')).toBe(0);
      expect(await (await other.get('/api/Dac?brand=topping')).json()).toMatchObject({ total: 0, items: [] });
      const brand = uniqueBrand('AfterTruncate');
      await insertEntries(other.db, [buildEntry({ brand }), buildEntry()]);
      expect(await keptCount(other.db)).toBe(2);
      expect(await keptCount(other.db, brand)).toBe(1);
      expect(await (await other.get('/api/Dac')).json()).toMatchObject({ total: 2, totalPages: 1 });
    } finally {
      await other.stop();
    }
  });
});
