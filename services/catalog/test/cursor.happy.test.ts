import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { catalogPageSchema } from '@acs/contracts';
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
  const response = await catalog.get(`/api/Dac${query}`);
  expect(response.status).toBe(200);
  const body = (await response.json()) as CatalogPageBody;
  expect(catalogPageSchema.safeParse(body).success).toBe(true);
  return body;
}

async function idsInDatabase(brand?: string): Promise<number[]> {
  const { rows } =
    brand === undefined
      ? await catalog.db.query<{ id: number }>('SELECT id FROM catalog_entries ORDER BY id')
      : await catalog.db.query<{ id: number }>('SELECT id FROM catalog_entries WHERE lower(brand) = lower($1) ORDER BY id', [brand]);
  return rows.map((row) => row.id);
}

/** Follows nextCursor from the first answer to the end; returns every id seen and the answers. */
async function walk(firstQuery: string, params = ''): Promise<{ ids: number[]; answers: CatalogPageBody[] }> {
  const answers = [await answer(firstQuery)];
  while (answers.at(-1)!.nextCursor !== null) {
    answers.push(await answer(`?cursor=${answers.at(-1)!.nextCursor}${params}`));
    if (answers.length > 1000) throw new Error('the cursor walk does not end');
  }
  return { ids: answers.flatMap((body) => body.items.map((item) => item.id)), answers };
}

describe('GET /api/Dac with cursor=', () => {
  it('walks the whole catalog in id order, no gap, no overlap, nextCursor null only on the last answer', async () => {
    const expected = await idsInDatabase();
    const { ids, answers } = await walk('?pageSize=7', '&pageSize=7');
    expect(ids).toEqual(expected);
    expect(answers.length).toBe(Math.ceil(expected.length / 7));
    for (const body of answers.slice(1)) {
      expect(body.page).toBeNull();
      expect(body.pageSize).toBe(7);
      expect(body.total).toBe(expected.length);
    }
    expect(answers.at(-1)!.nextCursor).toBeNull();
  });

  it('gives the same entries as the next page: a page answer carries the cursor after it', async () => {
    const second = await answer('?page=2&pageSize=5');
    const third = await answer('?page=3&pageSize=5');
    expect((await answer(`?cursor=${second.nextCursor}&pageSize=5`)).items).toEqual(third.items);
  });

  it('is URL-safe text (base64url, no padding)', async () => {
    const { nextCursor } = await answer('?pageSize=3');
    expect(nextCursor).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('answers nextCursor null when the last page is exactly full', async () => {
    const brand = uniqueBrand('Exact');
    await insertEntries(catalog.db, [buildEntry({ brand }), buildEntry({ brand }), buildEntry({ brand }), buildEntry({ brand })]);
    const first = await answer(`?brand=${encodeURIComponent(brand)}&pageSize=2`);
    expect(first.nextCursor).not.toBeNull();
    const last = await answer(`?cursor=${first.nextCursor}&pageSize=2`);
    expect(last.items).toHaveLength(2);
    expect(last.nextCursor).toBeNull();
  });

  it('keeps seeing entries inserted after the walk started, past its position (keyset, not offset)', async () => {
    const brand = uniqueBrand('Live');
    await insertEntries(catalog.db, [buildEntry({ brand }), buildEntry({ brand }), buildEntry({ brand })]);
    const first = await answer(`?brand=${encodeURIComponent(brand)}&pageSize=2`);
    const [added] = await insertEntries(catalog.db, [buildEntry({ brand })]);
    const rest = await answer(`?cursor=${first.nextCursor}&pageSize=2`);
    expect(rest.items.map((item) => item.id)).toEqual((await idsInDatabase(brand)).slice(2));
    expect(rest.items.map((item) => item.id)).toContain(added);
  });

  it('carries the brand filter: the query may omit it or repeat it in any case', async () => {
    const brand = uniqueBrand('Carried');
    await insertEntries(
      catalog.db,
      Array.from({ length: 5 }, () => buildEntry({ brand })),
    );
    await insertEntries(catalog.db, [buildEntry()]); // another brand, after them
    const expected = await idsInDatabase(brand);
    const omitted = await walk(`?brand=${encodeURIComponent(brand)}&pageSize=2`, '&pageSize=2');
    expect(omitted.ids).toEqual(expected);
    const repeated = await walk(
      `?brand=${encodeURIComponent(brand)}&pageSize=2`,
      `&pageSize=2&brand=${encodeURIComponent(brand.toUpperCase())}`,
    );
    expect(repeated.ids).toEqual(expected);
    for (const body of omitted.answers) expect(body.total).toBe(5);
  });

  it('refuses a cursor whose filter differs from the query with 400 and a detail at query.cursor', async () => {
    const brand = uniqueBrand('Other');
    await insertEntries(catalog.db, [buildEntry({ brand }), buildEntry({ brand })]);
    const first = await answer(`?brand=${encodeURIComponent(brand)}&pageSize=1`);
    for (const query of [`brand=topping`, `brand=${encodeURIComponent(`${brand}x`)}`]) {
      const response = await catalog.get(`/api/Dac?cursor=${first.nextCursor}&${query}`);
      expect(response.status).toBe(400);
      const body = (await response.json()) as ErrorBody;
      expect(body.details).toEqual([{ path: 'query.cursor', message: expect.stringMatching(/other filters/) }]);
    }
    // A cursor of the unfiltered listing does not accept a brand either.
    const unfiltered = await answer('?pageSize=1');
    const response = await catalog.get(`/api/Dac?cursor=${unfiltered.nextCursor}&brand=topping`);
    expect(response.status).toBe(400);
  });
});
