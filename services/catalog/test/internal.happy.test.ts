import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CATALOG_SUMMARIES_PATH, catalogSummariesResponseSchema } from '@acs/contracts';
import { signedFetch } from '@acs/testing';
import { INTERNAL_SECRET, startCatalog, type CatalogHarness } from './harness.js';

let h: CatalogHarness;
beforeAll(async () => {
  h = await startCatalog();
});
afterAll(async () => h.stop());

describe('catalog summaries for other services', () => {
  it('answers the entries that exist, and leaves out the ids that do not', async () => {
    const res = await signedFetch(h.url, INTERNAL_SECRET, 'POST', CATALOG_SUMMARIES_PATH, { body: { ids: [1, 2, 999999] } });
    expect(res.status).toBe(200);
    const { entries } = catalogSummariesResponseSchema.parse(await res.json());
    expect(entries.map((e) => e.id)).toEqual([1, 2]);
    expect(entries[0]).toEqual({ id: 1, type: expect.any(String), brand: expect.any(String), model: expect.any(String) });
  });

  it('refuses bad bodies and unsigned callers', async () => {
    expect((await signedFetch(h.url, INTERNAL_SECRET, 'POST', CATALOG_SUMMARIES_PATH, { body: { ids: [] } })).status).toBe(400);
    expect((await signedFetch(h.url, INTERNAL_SECRET, 'POST', CATALOG_SUMMARIES_PATH, { body: { ids: ['x'] } })).status).toBe(400);
    expect(
      (
        await fetch(h.url + CATALOG_SUMMARIES_PATH, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"ids":[1]}',
        })
      ).status,
    ).toBe(401);
  });
});
