import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CATALOG_SUMMARIES_PATH } from '@acs/contracts';
import { signedFetch } from '@acs/testing';
import { startCatalog, type CatalogHarness } from './harness.js';

// Issue 24.5: device calls the catalog's /internal/ routes with a key of its own (PEER_INTERNAL_SECRET
// here, CATALOG_PEER_SECRET there). That key opens those routes and nothing else: device cannot
// sign an admin context for the import or any other route of the catalog.
const PEER_KEY = 'device-to-catalog-key-0123456789abcdefghijk';
let catalog: CatalogHarness;
beforeAll(async () => {
  catalog = await startCatalog({ env: { PEER_INTERNAL_SECRET: PEER_KEY } });
});
afterAll(async () => catalog?.stop());

describe("device's key for the catalog", () => {
  it('is accepted on /internal/catalog/summaries', async () => {
    const res = await signedFetch(catalog.url, PEER_KEY, 'POST', CATALOG_SUMMARIES_PATH, { body: { ids: [1] } });
    expect(res.status).toBe(200);
  });

  it('is refused everywhere else, even with an admin context', async () => {
    const admin = { keyId: 'k', scopes: ['system:full-access'], userId: 1, role: 3 };
    expect((await signedFetch(catalog.url, PEER_KEY, 'GET', '/api/Dac', { context: admin })).status).toBe(401);
    expect((await signedFetch(catalog.url, PEER_KEY, 'POST', '/api/Dac/import?dryRun=true', { context: admin, body: [] })).status).toBe(
      401,
    );
  });
});
