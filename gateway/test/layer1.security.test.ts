import { startFakeUpstream, type FakeUpstream } from '@acs/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { verifyContext } from '@acs/auth';
import { apiKeyCacheKey } from '@acs/contracts';
import { SPEC_ERRORS } from '@acs/errors';
import { changeApiKey, createApiKey, revokeApiKey } from '@acs/keys-service';
import { INTERNAL_SECRET, startGatewayHarness, type GatewayHarness } from './harness.js';

// The spec's error and message word for word for every 401; the code says whether a header was missing or
// the credentials do not open anything, and never which part of them was wrong.
const MISSING = { error: SPEC_ERRORS.missingApiKey.error, message: SPEC_ERRORS.missingApiKey.message, code: 'missing_credentials' };
const INVALID = { ...MISSING, code: 'invalid_credentials' };

let h: GatewayHarness;
let catalog: FakeUpstream;
let reader: { id: string; key: string; secret: string };

beforeAll(async () => {
  catalog = await startFakeUpstream();
  h = await startGatewayHarness({ CATALOG_URL: catalog.url });
  reader = await h.createKey(['read:devices']);
});
afterAll(async () => {
  await h.close();
  await catalog.close();
});

async function expectBody(res: Response, status: number, body: { error: string; message: string; code: string }): Promise<void> {
  expect(res.status).toBe(status);
  const json = (await res.json()) as Record<string, unknown>;
  expect({ error: json.error, message: json.message, code: json.code }).toEqual(body);
}

/** The body without its requestId: what a caller could compare between two refusals. */
async function bodyOf(res: Response): Promise<Record<string, unknown>> {
  const { requestId: _requestId, ...rest } = (await res.json()) as Record<string, unknown>;
  return rest;
}

describe('layer 1: 401 with the spec body', () => {
  it('when both headers are missing', async () => {
    await expectBody(await h.call('GET', '/api/Dac', null), 401, MISSING);
  });
  it('when only the key or only the secret is sent', async () => {
    await expectBody(await h.call('GET', '/api/Dac', null, { headers: { 'x-api-key': reader.key } }), 401, MISSING);
    await expectBody(await h.call('GET', '/api/Dac', null, { headers: { 'x-api-secret': reader.secret } }), 401, MISSING);
  });
  it('when the secret is wrong, the key unknown or malformed', async () => {
    await expectBody(await h.call('GET', '/api/Dac', { key: reader.key, secret: `${reader.secret}x` }), 401, INVALID);
    await expectBody(await h.call('GET', '/api/Dac', { key: 'acs_test_AAAAAAAAAAAAAAAAAAAAAAAA', secret: reader.secret }), 401, INVALID);
    await expectBody(await h.call('GET', '/api/Dac', { key: 'not-a-key', secret: reader.secret }), 401, INVALID);
  });
  it('never reveals which part was wrong: a wrong secret, an unknown, malformed, revoked or expired key answer the same body', async () => {
    const revoked = await h.createKey(['read:devices']);
    await revokeApiKey(h.keys.deps, revoked.id);
    const created = await createApiKey(h.keys.deps, {
      name: 'expiring',
      scopes: ['read:devices'],
      ownerUserId: null,
      environment: 'test',
      expiresAt: new Date(Date.now() + 1000),
    });
    const expired = { key: created.apiKey.key, secret: created.secret };
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const bodies = [
      await bodyOf(await h.call('GET', '/api/Dac', { key: reader.key, secret: `${reader.secret}x` })),
      await bodyOf(await h.call('GET', '/api/Dac', { key: 'acs_test_AAAAAAAAAAAAAAAAAAAAAAAA', secret: reader.secret })),
      await bodyOf(await h.call('GET', '/api/Dac', { key: 'not-a-key', secret: reader.secret })),
      await bodyOf(await h.call('GET', '/api/Dac', revoked)),
      await bodyOf(await h.call('GET', '/api/Dac', expired)),
    ];
    expect(bodies[0]).toMatchObject({ ...INVALID, hint: expect.stringMatching(/unknown, revoked or expired/) });
    for (const body of bodies) expect(body).toEqual(bodies[0]);
  });
  it('before revealing whether an /api route exists', async () => {
    await expectBody(await h.call('GET', '/api/Nothing', null), 401, MISSING);
  });
  it('never reaches the upstream', async () => {
    const before = catalog.received.length;
    await h.call('GET', '/api/Dac', { key: reader.key, secret: 'wrong' });
    expect(catalog.received.length).toBe(before);
  });
});

// Every route's 401/403 refusals: test/e2e/route-guards.e2e.test.ts, driven by the route table.
describe('layer 1: scopes', () => {
  it('read:devices, write:devices and system:full-access all read the catalog', async () => {
    for (const scopes of [['read:devices'], ['write:devices'], ['system:full-access']]) {
      const key = await h.createKey(scopes);
      expect((await h.call('GET', '/api/Dac', key)).status).toBe(200);
    }
  });
});

describe('freshness: every change applies on the very next request', () => {
  it('a removed scope is refused, an added scope allowed, on the next request', async () => {
    const key = await h.createKey(['auth:login']);
    expect((await h.call('GET', '/api/Dac', key)).status).toBe(403);
    await changeApiKey(h.keys.deps, key.id, { scopes: ['auth:login', 'read:devices'] });
    expect((await h.call('GET', '/api/Dac', key)).status).toBe(200);
    await changeApiKey(h.keys.deps, key.id, { scopes: ['auth:login'] });
    expect((await h.call('GET', '/api/Dac', key)).status).toBe(403);
  });

  it('a revoked key gets 401 on the next request', async () => {
    const key = await h.createKey(['read:devices']);
    expect((await h.call('GET', '/api/Dac', key)).status).toBe(200);
    await revokeApiKey(h.keys.deps, key.id);
    await expectBody(await h.call('GET', '/api/Dac', key), 401, INVALID);
  });

  it('holds for every gateway replica', async () => {
    const other = await h.startAnotherGateway();
    const key = await h.createKey(['read:devices']);
    const viaOther = (k: { key: string; secret: string }) =>
      fetch(`${other.server.url}/api/Dac`, { headers: { 'x-api-key': k.key, 'x-api-secret': k.secret } });
    expect((await viaOther(key)).status).toBe(200);
    expect((await h.call('GET', '/api/Dac', key)).status).toBe(200);
    await changeApiKey(h.keys.deps, key.id, { scopes: ['auth:login'] });
    expect((await viaOther(key)).status).toBe(403);
    expect((await h.call('GET', '/api/Dac', key)).status).toBe(403);
    await revokeApiKey(h.keys.deps, key.id);
    expect((await viaOther(key)).status).toBe(401);
    expect((await h.call('GET', '/api/Dac', key)).status).toBe(401);
  });

  it('a key whose cache entry was evicted still works (refilled from the keys service)', async () => {
    const key = await h.createKey(['read:devices']);
    await h.cache.del(apiKeyCacheKey(key.key));
    expect((await h.call('GET', '/api/Dac', key)).status).toBe(200);
    expect(await h.cache.getVersioned(apiKeyCacheKey(key.key))).not.toBeNull();
  });
});

describe('what the service receives', () => {
  it('a signed context it can verify, and never the secret, the JWT or forged context headers', async () => {
    catalog.received.length = 0;
    const res = await h.call('GET', '/api/Dac?page=2', reader, {
      headers: {
        'x-acs-context': 'forged',
        'x-acs-signature': 'forged',
        authorization: 'Bearer x.y.z',
        'x-request-id': 'trace-42',
        cookie: 'a=b',
      },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe('trace-42');
    const seen = catalog.received[0]!;
    expect(seen.url).toBe('/api/Dac?page=2');
    expect(seen.headers['x-api-secret']).toBeUndefined();
    expect(seen.headers['x-api-key']).toBeUndefined();
    expect(seen.headers.authorization).toBeUndefined();
    expect(seen.headers.cookie).toBeUndefined();
    expect(seen.headers['x-request-id']).toBe('trace-42');
    const context = verifyContext(
      INTERNAL_SECRET,
      'catalog',
      'GET',
      seen.url,
      seen.headers['x-acs-context'] as string,
      seen.headers['x-acs-signature'] as string,
    );
    expect(context).toMatchObject({ keyId: reader.id, scopes: ['read:devices'], requestId: 'trace-42' });
  });
});

describe('the client address in the signed context', () => {
  const contextSeenBy = (upstream: FakeUpstream) => {
    const seen = upstream.received.at(-1)!;
    return verifyContext(
      INTERNAL_SECRET,
      'catalog',
      'GET',
      seen.url,
      seen.headers['x-acs-context'] as string,
      seen.headers['x-acs-signature'] as string,
    );
  };

  it('ignores X-Forwarded-For from a caller that is neither a trusted proxy nor a system key', async () => {
    await h.call('GET', '/api/Dac', reader, { headers: { 'x-forwarded-for': '198.51.100.1' } });
    expect(contextSeenBy(catalog)?.clientIp).toBe('127.0.0.1');
  });

  it('takes it from a system key (the dashboard acting for a browser)', async () => {
    const dashboard = await h.createKey(['system:full-access']);
    await h.call('GET', '/api/Dac', dashboard, { headers: { 'x-forwarded-for': '198.51.100.2' } });
    expect(contextSeenBy(catalog)?.clientIp).toBe('198.51.100.2');
  });

  it('takes it from a trusted proxy (TRUSTED_PROXIES), and only the part the proxy wrote', async () => {
    const upstream = await startFakeUpstream();
    const behindIngress = await startGatewayHarness({ CATALOG_URL: upstream.url }, { TRUSTED_PROXIES: '127.0.0.0/8' });
    try {
      const key = await behindIngress.createKey(['read:devices']);
      await behindIngress.call('GET', '/api/Dac', key, { headers: { 'x-forwarded-for': '6.6.6.6, 198.51.100.3' } });
      expect(contextSeenBy(upstream)?.clientIp).toBe('198.51.100.3');
    } finally {
      await behindIngress.close();
      await upstream.close();
    }
  });
});
