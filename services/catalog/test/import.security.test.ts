import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { signContext } from '@acs/auth';
import { INTERNAL_SECRET, buildEntry, startCatalog, type CatalogHarness, type ErrorBody } from './harness.js';
import { ADMIN, SUBSCRIBER, postImport, snapshot } from './import-helpers.js';

let catalog: CatalogHarness;

beforeAll(async () => {
  catalog = await startCatalog();
});

afterAll(async () => {
  await catalog?.stop();
});

const SPEC_403 = { error: 'Insufficient permissions', message: 'A valid user JWT with sufficient role is required' };

describe('POST /api/Dac/import: who may import', () => {
  it.each([
    ['a Subscriber (role 1)', SUBSCRIBER],
    ['a Free user (role 0)', { ...ADMIN, role: 0 }],
    ['a caller without a user', { requestId: 'x', keyId: 'key', scopes: ['write:devices'] }],
  ])('refuses %s with 403 and the spec body, before reading the body, and writes nothing', async (_name, context) => {
    const before = await snapshot(catalog.db);
    const response = await postImport(catalog, [buildEntry()], { context });
    expect(response.status).toBe(403);
    const body = (await response.json()) as ErrorBody;
    expect(body).toMatchObject(SPEC_403);
    expect(body.details).toBeUndefined();
    expect(await snapshot(catalog.db)).toBe(before);
  });

  it('refuses a non-admin with 403 even for a dry run or a bad body (no hint about validation)', async () => {
    expect((await postImport(catalog, [{}], { context: SUBSCRIBER, query: '?dryRun=true' })).status).toBe(403);
    expect((await postImport(catalog, '{not json', { context: SUBSCRIBER })).status).toBe(403);
  });

  it('accepts a SuperAdmin (role 3)', async () => {
    const response = await postImport(catalog, [buildEntry()], { context: { ...ADMIN, role: 3 } });
    expect(response.status).toBe(200);
  });

  it('answers an unsigned request with 401 and writes nothing', async () => {
    const before = await snapshot(catalog.db);
    const response = await fetch(`${catalog.url}/api/Dac/import`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([buildEntry()]),
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: 'Unauthorized' });
    expect(await snapshot(catalog.db)).toBe(before);
  });

  it('answers 401 when an admin signature for a dry run is replayed without ?dryRun', async () => {
    const { context, signature } = signContext(INTERNAL_SECRET, 'catalog', 'POST', '/api/Dac/import?dryRun=true', ADMIN);
    const response = await fetch(`${catalog.url}/api/Dac/import`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-acs-context': context, 'x-acs-signature': signature },
      body: JSON.stringify([buildEntry()]),
    });
    expect(response.status).toBe(401);
  });

  it('answers 401 when a Subscriber context is altered to role 2 after signing', async () => {
    const { context, signature } = signContext(INTERNAL_SECRET, 'catalog', 'POST', '/api/Dac/import', SUBSCRIBER);
    const decoded = JSON.parse(Buffer.from(context, 'base64url').toString('utf8')) as Record<string, unknown>;
    const forged = Buffer.from(JSON.stringify({ ...decoded, role: 2 })).toString('base64url');
    const response = await fetch(`${catalog.url}/api/Dac/import`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-acs-context': forged, 'x-acs-signature': signature },
      body: JSON.stringify([buildEntry()]),
    });
    expect(response.status).toBe(401);
  });

  it('stores SQL-looking values as plain text', async () => {
    const entry = buildEntry({ brand: "Bobby'); DROP TABLE catalog_entries; --", model: '%_\\' });
    expect((await postImport(catalog, [entry])).status).toBe(200);
    const { rows } = await catalog.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM catalog_entries WHERE brand = $1 AND model = $2',
      [entry.brand, entry.model],
    );
    expect(rows[0]!.n).toBe(1);
  });
});
