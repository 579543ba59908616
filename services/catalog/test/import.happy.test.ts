import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { buildEntry, keptCount, realCount, startCatalog, uniqueBrand, type CatalogHarness, type CatalogPageBody } from './harness.js';
import { countsExact, postImport, snapshot, type ImportCountsBody } from './import-helpers.js';

let catalog: CatalogHarness;

beforeAll(async () => {
  catalog = await startCatalog();
});

afterAll(async () => {
  await catalog?.stop();
});

async function page(query: string): Promise<CatalogPageBody> {
  const response = await catalog.get(`/api/Dac${query}`);
  expect(response.status).toBe(200);
  return (await response.json()) as CatalogPageBody;
}

describe('POST /api/Dac/import by an Admin', () => {
  it('inserts new products and answers exact counts; they are in GET /api/Dac at once with the right totals', async () => {
    const brand = uniqueBrand('Import');
    const totalBefore = (await page('')).total;
    const entries = [
      buildEntry({ brand }),
      buildEntry({
        brand,
        type: 'amplifier',
        specs: { powerPerChannelW: 100, powerLoadOhms: 8, amplifierClass: 'AB', channels: 2 },
      } as never),
      buildEntry({ brand }),
    ];
    const response = await postImport(catalog, entries);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({ inserted: 3, updated: 0, total: 3 });

    const filtered = await page(`?brand=${encodeURIComponent(brand)}`);
    expect(filtered.total).toBe(3);
    // New ids follow product-key order (the upsert's lock order), not file order.
    expect(filtered.items.map((item) => item.model).sort()).toEqual(entries.map((entry) => entry.model).sort());
    expect((await page('')).total).toBe(totalBefore + 3);
    expect(await countsExact(catalog.db)).toBe(true);
  });

  it('updates existing products matched by type, brand and model ignoring case, and counts them as updated', async () => {
    const brand = uniqueBrand('Upsert');
    const first = [buildEntry({ brand, price: 100 }), buildEntry({ brand, price: 200 })];
    expect(await (await postImport(catalog, first)).json()).toEqual({ inserted: 2, updated: 0, total: 2 });
    const total = await realCount(catalog.db);

    const again = [
      { ...first[0]!, brand: brand.toUpperCase(), model: first[0]!.model.toLowerCase(), price: 150, releaseYear: 2023 },
      buildEntry({ brand }),
      { ...first[1]!, currency: 'EUR' },
    ];
    const response = await postImport(catalog, again);
    expect(await response.json()).toEqual({ inserted: 1, updated: 2, total: 3 });
    expect(await realCount(catalog.db)).toBe(total + 1);

    const { rows } = await catalog.db.query<{ brand: string; model: string; price: string; currency: string; release_year: number }>(
      'SELECT brand, model, price, currency, release_year FROM catalog_entries WHERE lower(brand) = lower($1) ORDER BY id',
      [brand],
    );
    expect(rows).toHaveLength(3);
    // The spelling of the last import wins, and the counters follow the brand key (not the spelling).
    expect(rows[0]).toMatchObject({
      brand: brand.toUpperCase(),
      model: first[0]!.model.toLowerCase(),
      price: '150.00',
      release_year: 2023,
    });
    expect(rows[1]).toMatchObject({ currency: 'EUR', price: '200.00' });
    expect(await keptCount(catalog.db, brand)).toBe(3);
    expect((await page(`?brand=${encodeURIComponent(brand)}`)).total).toBe(3);
    expect(await countsExact(catalog.db)).toBe(true);
  });

  it('accepts the {"items": [...]} form', async () => {
    const brand = uniqueBrand('Items');
    const response = await postImport(catalog, { items: [buildEntry({ brand }), buildEntry({ brand })] });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ inserted: 2, updated: 0, total: 2 });
    expect(await realCount(catalog.db, brand)).toBe(2);
  });

  it('fills in the default currency (USD) and trims brand and model, as the entry schema does', async () => {
    const brand = uniqueBrand('Trim');
    const { currency: _omitted, ...entry } = buildEntry({ brand: `  ${brand} `, model: ' Spaced ' });
    expect((await postImport(catalog, [entry])).status).toBe(200);
    const { items } = await page(`?brand=${encodeURIComponent(brand)}`);
    expect(items[0]).toMatchObject({ brand, model: 'Spaced', currency: 'USD' });
  });

  it('a dry run writes nothing and reports the counts the real import then has', async () => {
    const brand = uniqueBrand('Dry');
    const existing = buildEntry({ brand });
    await postImport(catalog, [existing]);
    const batch = [{ ...existing, price: 1 }, buildEntry({ brand }), buildEntry({ brand })];
    const before = await snapshot(catalog.db);

    const dry = await postImport(catalog, batch, { query: '?dryRun=true' });
    expect(dry.status).toBe(200);
    const dryCounts = (await dry.json()) as ImportCountsBody;
    expect(dryCounts).toEqual({ inserted: 2, updated: 1, total: 3 });
    expect(await snapshot(catalog.db)).toBe(before);

    const real = await postImport(catalog, batch, { query: '?dryRun=false' });
    expect(await real.json()).toEqual(dryCounts);
    expect(await realCount(catalog.db, brand)).toBe(3);
  });

  it('imports the largest batch (20,000 rows) in one request with exact counters', async () => {
    const brand = uniqueBrand('Large');
    const entries = Array.from({ length: 20_000 }, (_, i) => buildEntry({ brand: i % 2 ? brand : `${brand} B`, model: `Large ${i}` }));
    const total = await realCount(catalog.db);
    const response = await postImport(catalog, entries);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ inserted: 20_000, updated: 0, total: 20_000 });
    expect((await page('')).total).toBe(total + 20_000);
    expect(await keptCount(catalog.db, brand)).toBe(10_000);
    const again = await postImport(
      catalog,
      entries.map((entry) => ({ ...entry, price: 5 })),
    );
    expect(await again.json()).toEqual({ inserted: 0, updated: 20_000, total: 20_000 });
    expect(await countsExact(catalog.db)).toBe(true);
  }, 60_000);

  it('keeps the counters exact when two imports of the same products run at once', async () => {
    const brand = uniqueBrand('Race');
    const entries = Array.from({ length: 200 }, (_, i) => buildEntry({ brand: `${brand} ${i % 5}`, model: `Race ${i}` }));
    const reversed = [...entries].reverse();
    const results = await Promise.all([postImport(catalog, entries), postImport(catalog, reversed)]);
    const bodies = (await Promise.all(results.map((r) => r.json()))) as ImportCountsBody[];
    expect(results.map((r) => r.status)).toEqual([200, 200]);
    expect(bodies[0]!.inserted + bodies[1]!.inserted).toBe(200);
    expect(bodies[0]!.updated + bodies[1]!.updated).toBe(200);
    expect(await countsExact(catalog.db)).toBe(true);
  });
});
