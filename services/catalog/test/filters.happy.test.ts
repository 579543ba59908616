import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import type { CatalogEntryInput } from '@acs/contracts';
import {
  buildEntry,
  insertEntries,
  startCatalog,
  uniqueBrand,
  type CatalogHarness,
  type CatalogPageBody,
  type ErrorBody,
} from './harness.js';

let catalog: CatalogHarness;

beforeAll(async () => {
  catalog = await startCatalog();
});

afterAll(async () => {
  await catalog?.stop();
});

async function answer(query: string): Promise<CatalogPageBody> {
  const response = await catalog.get(`/api/Dac?${query}`);
  expect(response.status).toBe(200);
  return (await response.json()) as CatalogPageBody;
}

async function ids(where: string, values: unknown[]): Promise<number[]> {
  const { rows } = await catalog.db.query<{ id: number }>(`SELECT id FROM catalog_entries WHERE ${where} ORDER BY id`, values);
  return rows.map((row) => row.id);
}

/** Every id of a listing: by page, and by cursor from its first answer; both must agree. */
async function everyId(query: string): Promise<number[]> {
  const byPage: number[] = [];
  const first = await answer(`${query}&pageSize=3`);
  for (let page = 1; page <= first.totalPages; page++)
    byPage.push(...(await answer(`${query}&pageSize=3&page=${page}`)).items.map((item) => item.id));
  const byCursor = first.items.map((item) => item.id);
  for (let body = first; body.nextCursor !== null; ) {
    body = await answer(`cursor=${body.nextCursor}&pageSize=3`);
    byCursor.push(...body.items.map((item) => item.id));
  }
  expect(byCursor).toEqual(byPage);
  expect(first.total).toBe(byPage.length);
  return byPage;
}

const amplifier = (overrides: Partial<CatalogEntryInput> = {}): CatalogEntryInput =>
  buildEntry({
    type: 'amplifier',
    specs: { powerPerChannelW: 100, powerLoadOhms: 8, amplifierClass: 'AB', channels: 2 },
    ...overrides,
  } as Partial<CatalogEntryInput>);

describe('GET /api/Dac?type=', () => {
  it('lists only that type, in id order, with the real total, by page and by cursor', async () => {
    await insertEntries(catalog.db, [amplifier(), amplifier(), buildEntry()]);
    for (const type of ['dac', 'amplifier', 'speaker']) {
      expect(await everyId(`type=${type}`)).toEqual(await ids('type = $1', [type]));
    }
  });

  it('combines with brand; totals stay exact through inserts, updates and deletes', async () => {
    const brand = uniqueBrand('Typed');
    await insertEntries(catalog.db, [amplifier({ brand }), amplifier({ brand }), buildEntry({ brand })]);
    const query = `type=amplifier&brand=${encodeURIComponent(brand.toUpperCase())}`;
    expect(await everyId(query)).toEqual(await ids('type = $1 AND lower(brand) = lower($2)', ['amplifier', brand]));
    expect((await answer(query)).total).toBe(2);
    await catalog.db.query(
      "DELETE FROM catalog_entries WHERE id = (SELECT min(id) FROM catalog_entries WHERE brand = $1 AND type = 'amplifier')",
      [brand],
    );
    await catalog.db.query('UPDATE catalog_entries SET brand = upper(brand) WHERE brand = $1', [brand]);
    expect((await answer(query)).total).toBe(1);
    expect((await answer(`type=dac&brand=${encodeURIComponent(brand)}`)).total).toBe(1);
    const { rows } = await catalog.db.query<{ n: number }>("SELECT count(*)::int AS n FROM catalog_entries WHERE type = 'dac'");
    expect((await answer('type=dac')).total).toBe(rows[0]!.n);
  });
});

describe('GET /api/Dac?q=', () => {
  let brand: string;
  beforeAll(async () => {
    brand = uniqueBrand('Searchable');
    await insertEntries(catalog.db, [
      buildEntry({ brand, model: 'Zephyr 100%' }),
      buildEntry({ brand, model: 'Zephyr_Pro' }),
      amplifier({ brand, model: 'ZEPHYR Amp' }),
      buildEntry({ model: `Nothing ${brand.split(' ')[1]} here` }),
    ]);
  });

  it('matches a substring of brand or model, ignoring case, by page and by cursor', async () => {
    const found = await everyId('q=zephyr');
    expect(found).toEqual(await ids("lower(brand || ' ' || model) LIKE '%zephyr%'", []));
    expect(found.length).toBeGreaterThanOrEqual(3);
    const token = brand.split(' ')[1]!.toUpperCase(); // the random part: in the three brands and one model
    expect(await everyId(`q=${token}`)).toEqual(await ids("lower(brand || ' ' || model) LIKE $1", [`%${token.toLowerCase()}%`]));
    expect((await answer(`q=${token}`)).total).toBe(4);
  });

  it('matches a prefix and "brand model" typed together', async () => {
    expect((await answer(`q=${encodeURIComponent(`${brand} zeph`)}`)).total).toBe(3);
    expect((await answer(`q=${encodeURIComponent(brand.slice(0, 12))}`)).items.some((item) => item.brand === brand)).toBe(true);
  });

  it('takes %, _ and \\ literally', async () => {
    const percent = await answer(`q=${encodeURIComponent('Zephyr 100%')}&brand=${encodeURIComponent(brand)}`);
    expect(percent.items.map((item) => item.model)).toEqual(['Zephyr 100%']);
    const underscore = await answer(`q=${encodeURIComponent('zephyr_')}&brand=${encodeURIComponent(brand)}`);
    expect(underscore.items.map((item) => item.model)).toEqual(['Zephyr_Pro']);
    expect((await answer(`q=${encodeURIComponent('%')}&brand=${encodeURIComponent(brand)}`)).total).toBe(1);
    expect((await answer(`q=${encodeURIComponent('\\')}&brand=${encodeURIComponent(brand)}`)).total).toBe(0);
  });

  it('combines with brand and type', async () => {
    expect((await answer(`q=zephyr&brand=${encodeURIComponent(brand)}&type=amplifier`)).items.map((item) => item.model)).toEqual([
      'ZEPHYR Amp',
    ]);
    expect((await answer(`q=zephyr&brand=${encodeURIComponent(brand)}&type=dac`)).total).toBe(2);
  });

  it('carries q and type in the cursor and refuses others', async () => {
    const first = await answer(`q=zephyr&type=dac&brand=${encodeURIComponent(brand)}&pageSize=1`);
    const second = await answer(`cursor=${first.nextCursor}&pageSize=1&q=ZEPHYR&type=dac`);
    expect(second.items.map((item) => item.model)).toEqual(['Zephyr_Pro']);
    expect(second.nextCursor).toBeNull();
    for (const other of ['q=zeph', 'type=amplifier']) {
      const response = await catalog.get(`/api/Dac?cursor=${first.nextCursor}&${other}`);
      expect(response.status).toBe(400);
      const body = (await response.json()) as ErrorBody;
      expect(body.details).toEqual([{ path: 'query.cursor', message: expect.stringMatching(/other filters/) }]);
    }
  });

  it('is served by the trigram index on PostgreSQL', async () => {
    const { rows } = await catalog.db.query<{ indexdef: string }>(
      "SELECT indexdef FROM pg_indexes WHERE indexname = 'catalog_entries_search_idx'",
    );
    expect(rows[0]?.indexdef).toMatch(/gin_trgm_ops/);
    const plan = await catalog.db.transaction(async (tx) => {
      await tx.query('SET LOCAL enable_seqscan = off');
      const { rows: lines } = await tx.query<{ 'QUERY PLAN': string }>(
        "EXPLAIN SELECT id FROM catalog_entries WHERE lower(brand || ' ' || model) LIKE lower($1)",
        ['%zephyr%'],
      );
      return lines.map((line) => line['QUERY PLAN']).join('\n');
    });
    expect(plan).toContain('catalog_entries_search_idx');
  });
});
