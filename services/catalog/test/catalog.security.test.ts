import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { signContext } from '@acs/auth';
import { signedFetch } from '@acs/testing';
import { INTERNAL_SECRET, startCatalog, type CatalogHarness, type ErrorBody } from './harness.js';

let catalog: CatalogHarness;

beforeAll(async () => {
  catalog = await startCatalog();
});

afterAll(async () => {
  await catalog?.stop();
});

const CALLER = { requestId: 'security-test', keyId: 'key-1', scopes: ['read:devices'] };

async function expectUnauthorized(response: Response): Promise<void> {
  expect(response.status).toBe(401);
  const body = (await response.json()) as ErrorBody;
  expect(body).toMatchObject({ error: 'Unauthorized', message: 'This service only accepts requests signed by the gateway' });
  expect(body).not.toHaveProperty('items');
}

describe('GET /api/Dac without a valid gateway signature', () => {
  it('answers 401 when the context and signature headers are missing', async () => {
    await expectUnauthorized(await fetch(`${catalog.url}/api/Dac`));
  });

  it('answers 401 when the signature is made with another secret', async () => {
    await expectUnauthorized(await signedFetch(catalog.url, `${INTERNAL_SECRET}-other`, 'GET', '/api/Dac'));
  });

  it('answers 401 when a signature for one query is replayed with another query', async () => {
    const { context, signature } = signContext(INTERNAL_SECRET, 'catalog', 'GET', '/api/Dac?page=1', CALLER);
    const response = await fetch(`${catalog.url}/api/Dac?page=2`, { headers: { 'x-acs-context': context, 'x-acs-signature': signature } });
    await expectUnauthorized(response);
  });

  it('answers 401 when the signed context has expired', async () => {
    const longAgo = Math.floor(Date.now() / 1000) - 3600;
    const { context, signature } = signContext(INTERNAL_SECRET, 'catalog', 'GET', '/api/Dac', CALLER, longAgo);
    await expectUnauthorized(
      await fetch(`${catalog.url}/api/Dac`, { headers: { 'x-acs-context': context, 'x-acs-signature': signature } }),
    );
  });

  it('answers 401 when the context was altered after signing', async () => {
    const { context, signature } = signContext(INTERNAL_SECRET, 'catalog', 'GET', '/api/Dac', CALLER);
    const decoded = JSON.parse(Buffer.from(context, 'base64url').toString('utf8')) as Record<string, unknown>;
    const forged = Buffer.from(JSON.stringify({ ...decoded, scopes: ['system:full-access'] })).toString('base64url');
    await expectUnauthorized(await fetch(`${catalog.url}/api/Dac`, { headers: { 'x-acs-context': forged, 'x-acs-signature': signature } }));
  });

  it('answers 401 before validating the query, so an unsigned caller learns nothing about the parameters', async () => {
    await expectUnauthorized(await fetch(`${catalog.url}/api/Dac?page=0&bogus=1`));
  });

  it('serves the same request once it is signed by the gateway', async () => {
    const response = await signedFetch(catalog.url, INTERNAL_SECRET, 'GET', '/api/Dac?page=1', { context: CALLER });
    expect(response.status).toBe(200);
  });
});

describe('brand values that look like SQL', () => {
  it('treats them as plain text: no match, no error, the table intact', async () => {
    const before = await catalog.db.query<{ n: number }>('SELECT count(*) AS n FROM catalog_entries');
    for (const brand of ["x' OR '1'='1", "'; DROP TABLE catalog_entries; --", '%', '_']) {
      // fetch's URL parser turns ' into %27 in a query; sign the form it will send.
      const response = await catalog.get(`/api/Dac?brand=${encodeURIComponent(brand).replace(/'/g, '%27')}`);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ items: [], total: 0 });
    }
    const after = await catalog.db.query<{ n: number }>('SELECT count(*) AS n FROM catalog_entries');
    expect(after.rows[0]!.n).toBe(before.rows[0]!.n);
  });
});
