import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { catalogEntrySchema, catalogPageSchema } from '@acs/contracts';
import {
  buildEntry,
  captureLogger,
  insertEntries,
  realCount,
  startCatalog,
  uniqueBrand,
  type CatalogHarness,
  type CatalogPageBody,
  type LogLine,
} from './harness.js';

let catalog: CatalogHarness;
let logs: LogLine[];

beforeAll(async () => {
  const captured = captureLogger();
  logs = captured.lines;
  catalog = await startCatalog({ logger: captured.logger });
});

afterAll(async () => {
  await catalog?.stop();
});

async function page(query: string): Promise<CatalogPageBody> {
  const response = await catalog.get(`/api/Dac${query}`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  return (await response.json()) as CatalogPageBody;
}

async function allIds(): Promise<number[]> {
  const { rows } = await catalog.db.query<{ id: number }>('SELECT id FROM catalog_entries ORDER BY id');
  return rows.map((row) => row.id);
}

describe('GET /api/Dac: the seeded catalog', () => {
  it('holds the bundled products: at least 60 entries from 10+ brands', async () => {
    const {
      rows: [stats],
    } = await catalog.db.query<{ entries: number; brands: number }>(
      'SELECT count(*) AS entries, count(DISTINCT lower(brand)) AS brands FROM catalog_entries',
    );
    expect(stats!.entries).toBeGreaterThanOrEqual(60);
    expect(stats!.brands).toBeGreaterThanOrEqual(10);
    const body = await page('');
    expect(body.total).toBe(stats!.entries);
  });
});

describe('GET /api/Dac: paging', () => {
  it('defaults to page 1 of 20 with total and totalPages from the real row count', async () => {
    await insertEntries(catalog.db, [buildEntry()]);
    const body = await page('');
    const total = await realCount(catalog.db);
    expect(body.page).toBe(1);
    expect(body.pageSize).toBe(20);
    expect(body.total).toBe(total);
    expect(body.totalPages).toBe(Math.ceil(total / 20));
    expect(body.items.map((item) => item.id)).toEqual((await allIds()).slice(0, 20));
  });

  it('walks the whole catalog in id order with no overlap and no gap between consecutive pages', async () => {
    await insertEntries(catalog.db, [buildEntry(), buildEntry(), buildEntry()]);
    const expected = await allIds();
    const pageSize = 7;
    const first = await page(`?pageSize=${pageSize}`);
    expect(first.total).toBe(expected.length);
    expect(first.totalPages).toBe(Math.ceil(expected.length / pageSize));
    const seen: number[] = [];
    for (let n = 1; n <= first.totalPages; n++) {
      const body = await page(`?page=${n}&pageSize=${pageSize}`);
      expect(body.page).toBe(n);
      expect(body.pageSize).toBe(pageSize);
      expect(body.total).toBe(expected.length);
      expect(body.items.length).toBe(n < first.totalPages ? pageSize : expected.length - pageSize * (first.totalPages - 1));
      seen.push(...body.items.map((item) => item.id));
    }
    expect(seen).toEqual(expected);
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('answers the same page identically when asked twice, even after rows were updated', async () => {
    const before = await page('?page=2&pageSize=5');
    await catalog.db.query('UPDATE catalog_entries SET price = price + 1, updated_at = now() WHERE id = $1', [before.items[0]!.id]);
    const after = await page('?page=2&pageSize=5');
    expect(after.items.map((item) => item.id)).toEqual(before.items.map((item) => item.id));
  });

  it('answers a page past the end with no items and the real totals', async () => {
    const total = await realCount(catalog.db);
    const beyond = Math.ceil(total / 10) + 1;
    const body = await page(`?page=${beyond}&pageSize=10`);
    expect(body).toEqual({ items: [], page: beyond, pageSize: 10, total, totalPages: Math.ceil(total / 10), nextCursor: null });
  });

  it('accepts the largest page size (100) and returns at most that many', async () => {
    const body = await page('?pageSize=100');
    expect(body.pageSize).toBe(100);
    expect(body.items.length).toBe(Math.min(100, await realCount(catalog.db)));
  });
});

describe('GET /api/Dac: brand filter', () => {
  it('matches the brand case-insensitively (topping, TOPPING, Topping)', async () => {
    const expected = await realCount(catalog.db, 'Topping');
    expect(expected).toBeGreaterThan(0);
    for (const spelling of ['topping', 'TOPPING', 'Topping', 'tOpPiNg']) {
      const body = await page(`?brand=${spelling}`);
      expect(body.total).toBe(expected);
      expect(body.totalPages).toBe(Math.ceil(expected / 20));
      expect(body.items).toHaveLength(expected);
      expect(body.items.every((item) => item.brand.toLowerCase() === 'topping')).toBe(true);
    }
  });

  it('matches the whole brand only: a prefix, a longer name or a LIKE wildcard does not match', async () => {
    const brand = uniqueBrand('Acme');
    const ids = await insertEntries(catalog.db, [buildEntry({ brand }), buildEntry({ brand }), buildEntry({ brand: `${brand}X` })]);
    const exact = await page(`?brand=${encodeURIComponent(brand.toUpperCase())}`);
    expect(exact.items.map((item) => item.id)).toEqual(ids.slice(0, 2));
    expect(exact.total).toBe(2);
    for (const other of [brand.slice(0, -1), `${brand.slice(0, -1)}%`, `${brand.slice(0, -1)}_`, 'Top', 'Toppin']) {
      const body = await page(`?brand=${encodeURIComponent(other)}`);
      expect(body).toEqual({ items: [], page: 1, pageSize: 20, total: 0, totalPages: 0, nextCursor: null });
    }
  });

  it('pages within a brand in id order', async () => {
    const brand = uniqueBrand('Paged');
    const ids = await insertEntries(
      catalog.db,
      Array.from({ length: 5 }, () => buildEntry({ brand })),
    );
    const first = await page(`?brand=${encodeURIComponent(brand)}&pageSize=2`);
    const second = await page(`?brand=${encodeURIComponent(brand)}&pageSize=2&page=2`);
    const third = await page(`?brand=${encodeURIComponent(brand)}&pageSize=2&page=3`);
    expect([...first.items, ...second.items, ...third.items].map((item) => item.id)).toEqual(ids);
    expect(first).toMatchObject({ total: 5, totalPages: 3 });
    expect(third.items).toHaveLength(1);
  });

  it('finds brands with spaces and punctuation when URL-encoded', async () => {
    const expected = await realCount(catalog.db, 'Bowers & Wilkins');
    expect(expected).toBeGreaterThan(0);
    const body = await page(`?brand=${encodeURIComponent('bowers & wilkins')}`);
    expect(body.total).toBe(expected);
    expect(body.items[0]!.brand).toBe('Bowers & Wilkins');
  });

  it('answers an unknown brand with no items and total 0', async () => {
    const body = await page(`?brand=${encodeURIComponent(uniqueBrand('Nobody'))}`);
    expect(body).toEqual({ items: [], page: 1, pageSize: 20, total: 0, totalPages: 0, nextCursor: null });
  });
});

describe('GET /api/Dac: response shape', () => {
  it('returns only entries that validate against catalogEntrySchema, on every page', async () => {
    await insertEntries(catalog.db, [buildEntry({ price: 0 }), buildEntry({ price: 1234.5, currency: 'EUR' })]);
    const total = await realCount(catalog.db);
    let checked = 0;
    for (let n = 1; n <= Math.ceil(total / 100); n++) {
      const body = await page(`?page=${n}&pageSize=100`);
      expect(catalogPageSchema.safeParse(body).success).toBe(true);
      for (const item of body.items) {
        const parsed = catalogEntrySchema.safeParse(item);
        if (!parsed.success) throw new Error(`entry ${item.id} does not validate: ${parsed.error.message}`);
        checked += 1;
      }
    }
    expect(checked).toBe(total);
  });

  it('returns prices as numbers with their cents and the stored currency', async () => {
    const brand = uniqueBrand('Priced');
    await insertEntries(catalog.db, [buildEntry({ brand, price: 799.99, currency: 'GBP' })]);
    const body = await page(`?brand=${encodeURIComponent(brand)}`);
    expect(body.items[0]).toMatchObject({ brand, price: 799.99, currency: 'GBP', releaseYear: 2022, type: 'dac' });
  });

  it('logs one access line per request, with the path but never the query', async () => {
    const brand = uniqueBrand('Logged');
    const response = await catalog.get(`/api/Dac?brand=${encodeURIComponent(brand)}`);
    expect(response.status).toBe(200);
    const requestId = response.headers.get('x-request-id');
    const line = logs.find((entry) => entry.msg === 'request' && entry.requestId === requestId);
    expect(line).toMatchObject({ method: 'GET', path: '/api/Dac', status: 200 });
    expect(JSON.stringify(logs)).not.toContain(brand.split(' ')[1]!);
  });
});

describe('probes', () => {
  it('/readyz reports ready with the database and the migrations checked', async () => {
    const response = await fetch(`${catalog.url}/readyz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ready: true, checks: { database: 'ok', migrations: 'ok' } });
  });

  it('/healthz answers without a signature', async () => {
    const response = await fetch(`${catalog.url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });
});
