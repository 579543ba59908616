import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { buildEntry, insertEntries, openTestDb, startCatalog, uniqueBrand, type CatalogHarness } from './harness.js';

let catalog: CatalogHarness;

beforeAll(async () => {
  catalog = await startCatalog({ env: { CATALOG_MAX_AGE_SECONDS: '17' } });
});

afterAll(async () => {
  await catalog?.stop();
});

async function etagOf(query: string): Promise<string> {
  const response = await catalog.get(`/api/Dac${query}`);
  expect(response.status).toBe(200);
  await response.arrayBuffer();
  return response.headers.get('etag')!;
}

describe('GET /api/Dac: ETag and Cache-Control', () => {
  it('tags every answer and lets clients keep it for CATALOG_MAX_AGE_SECONDS', async () => {
    const response = await catalog.get('/api/Dac?pageSize=3');
    expect(response.status).toBe(200);
    expect(response.headers.get('etag')).toMatch(/^"\d+-[A-Za-z0-9_-]+"$/);
    expect(response.headers.get('cache-control')).toBe('private, max-age=17');
  });

  it('gives the same tag for the same answer and another tag for another query', async () => {
    expect(await etagOf('?pageSize=3')).toBe(await etagOf('?pageSize=3&page=1'));
    const tags = new Set([
      await etagOf('?pageSize=3'),
      await etagOf('?pageSize=4'),
      await etagOf('?page=2&pageSize=3'),
      await etagOf('?brand=Topping'),
      await etagOf('?brand=topping'),
    ]);
    expect(tags.size).toBe(5); // brand is echoed as sent inside nextCursor, so its spelling is part of the answer
  });

  it('answers If-None-Match with the current tag by 304, no body, the tag and Cache-Control', async () => {
    const etag = await etagOf('?pageSize=5');
    for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const response = await catalog.get('/api/Dac?pageSize=5', { 'if-none-match': header });
      expect(response.status).toBe(304);
      expect(await response.text()).toBe('');
      expect(response.headers.get('etag')).toBe(etag);
      expect(response.headers.get('cache-control')).toBe('private, max-age=17');
    }
  });

  it("answers 200 with the body when the tag is another query's or unknown", async () => {
    const other = await etagOf('?pageSize=6');
    for (const header of [other, '"1-nothing"', 'garbage']) {
      const response = await catalog.get('/api/Dac?pageSize=5', { 'if-none-match': header });
      expect(response.status).toBe(200);
      expect(((await response.json()) as { items: unknown[] }).items).toHaveLength(5);
    }
  });

  it('changes every tag when a write changes the catalog, and the old tag gets 200', async () => {
    const before = await etagOf('?page=1&pageSize=2');
    await insertEntries(catalog.db, [buildEntry()]); // far past page 1, yet the total changed
    const after = await etagOf('?page=1&pageSize=2');
    expect(after).not.toBe(before);
    const response = await catalog.get('/api/Dac?page=1&pageSize=2', { 'if-none-match': before });
    expect(response.status).toBe(200);
    await catalog.db.query('UPDATE catalog_entries SET price = price + 1 WHERE id = (SELECT min(id) FROM catalog_entries)');
    expect(await etagOf('?page=1&pageSize=2')).not.toBe(after);
  });

  it('keeps the tag when a statement changes no row', async () => {
    const before = await etagOf('?pageSize=2');
    await catalog.db.query("DELETE FROM catalog_entries WHERE brand = 'no such brand'");
    await catalog.db.query("UPDATE catalog_entries SET price = 1 WHERE brand = 'no such brand'");
    expect(await etagOf('?pageSize=2')).toBe(before);
  });

  it('moves the tag for an import through the API', async () => {
    const before = await etagOf('?pageSize=2');
    const brand = uniqueBrand('Tagged');
    await insertEntries(catalog.db, [buildEntry({ brand })]);
    expect(await etagOf('?pageSize=2')).not.toBe(before);
  });

  it('answers 304 without reading catalog_entries: it answers while another session holds the table locked', async () => {
    const etag = await etagOf('?pageSize=4');
    const locker = await openTestDb(catalog.database, 1);
    try {
      await locker.transaction(async (tx) => {
        await tx.query('LOCK TABLE catalog_entries, catalog_counts IN ACCESS EXCLUSIVE MODE');
        const response = await catalog.get('/api/Dac?pageSize=4', { 'if-none-match': etag });
        expect(response.status).toBe(304);
      });
    } finally {
      await locker.close();
    }
  });

  it('puts neither header on an error answer', async () => {
    const response = await catalog.get('/api/Dac?page=0');
    expect(response.status).toBe(400);
    expect(response.headers.get('etag')).toBeNull();
    expect(response.headers.get('cache-control') ?? '').not.toMatch(/max-age=17/);
  });
});
