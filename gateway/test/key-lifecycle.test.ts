import { startFakeUpstream, type FakeUpstream } from '@acs/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { changeApiKey, createApiKey, rollKey } from '@acs/keys-service';
import type { Gateway } from '@acs/gateway';
import { startGatewayHarness, type GatewayHarness } from './harness.js';

/*
 * Issue 17 through real gateways: expiry and the end of a grace period are instants in the key's record,
 * compared with each replica's clock (no scheduler, no cache delay); usage is counted in memory and sent
 * in the usage batch.
 */
let h: GatewayHarness;
let catalog: FakeUpstream;
let other: Gateway;
let bases: string[];
const FLUSH_MS = 150;
const SPEC_401 = { error: 'Missing authentication headers', message: 'Both X-Api-Key and X-Api-Secret headers are required' };

beforeAll(async () => {
  catalog = await startFakeUpstream();
  h = await startGatewayHarness({ CATALOG_URL: catalog.url }, { KEY_USAGE_FLUSH_MS: String(FLUSH_MS) });
  other = await h.startAnotherGateway();
  bases = [h.url, other.server.url];
});
afterAll(async () => {
  await h.close();
  await catalog.close();
});
beforeEach(() => {
  catalog.handle = (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"ok":true}');
  };
});

type Caller = { id: string; key: string; secret: string };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function status(base: string, caller: { key: string; secret: string }, path = '/api/Dac'): Promise<number> {
  const res = await fetch(base + path, { headers: { 'x-api-key': caller.key, 'x-api-secret': caller.secret } });
  await res.arrayBuffer();
  return res.status;
}

async function expectSpec401(base: string, caller: { key: string; secret: string }): Promise<void> {
  const res = await fetch(`${base}/api/Dac`, { headers: { 'x-api-key': caller.key, 'x-api-secret': caller.secret } });
  expect(res.status).toBe(401);
  expect(await res.json()).toMatchObject(SPEC_401);
}

async function keyExpiringIn(ms: number, rateLimits: { limit: number; windowSeconds: number }[] | null = null): Promise<Caller> {
  const { apiKey, secret } = await createApiKey(h.keys.deps, {
    name: 'expiring',
    scopes: ['read:devices'],
    ownerUserId: 77,
    environment: 'test',
    expiresAt: new Date(Date.now() + ms),
    rateLimits,
  });
  return { id: apiKey.id, key: apiKey.key, secret };
}

describe('expiry', () => {
  it('answers the spec 401 on both replicas from the instant on, though both served the key from their caches just before', async () => {
    for (const rateLimits of [null, [{ limit: 1000, windowSeconds: 3600 }]]) {
      const caller = await keyExpiringIn(1500, rateLimits);
      for (const base of bases) expect(await status(base, caller)).toBe(200);
      await sleep(1600);
      for (const base of bases) await expectSpec401(base, caller);
    }
  });
});

describe('rolling a secret', () => {
  it('accepts the old and the new secret on both replicas during the grace period, then only the new one', async () => {
    const caller = await h.createKey(['read:devices']);
    const { secret } = await rollKey(h.keys.deps, caller.id, 2);
    const rolled = { key: caller.key, secret };
    for (const base of bases) {
      expect(await status(base, caller)).toBe(200);
      expect(await status(base, rolled)).toBe(200);
    }
    await sleep(2100);
    for (const base of bases) {
      await expectSpec401(base, caller);
      expect(await status(base, rolled)).toBe(200);
    }
  });

  it('refuses the old secret at once with a grace of 0', async () => {
    const caller = await h.createKey(['read:devices']);
    for (const base of bases) expect(await status(base, caller)).toBe(200);
    const { secret } = await rollKey(h.keys.deps, caller.id, 0);
    for (const base of bases) {
      await expectSpec401(base, caller);
      expect(await status(base, { key: caller.key, secret })).toBe(200);
    }
  });

  it('counts a rate-limited key the same with either secret (the limit script knows the previous secret too)', async () => {
    const caller = await h.createKey(['read:devices']);
    await changeApiKey(h.keys.deps, caller.id, { rateLimits: [{ limit: 2, windowSeconds: 3600 }] });
    const { secret } = await rollKey(h.keys.deps, caller.id, 600);
    expect(await status(h.url, caller)).toBe(200);
    expect(await status(other.server.url, { key: caller.key, secret })).toBe(200);
    expect(await status(h.url, caller)).toBe(429);
    expect(await status(other.server.url, { key: caller.key, secret })).toBe(429);
  });

  it('never accepts a wrong secret, also during a grace period', async () => {
    const caller = await h.createKey(['read:devices']);
    await rollKey(h.keys.deps, caller.id, 600);
    for (const base of bases) await expectSpec401(base, { key: caller.key, secret: `${caller.secret}x` });
  });
});

describe('usage', () => {
  it('counts the requests both replicas answered, by UTC day and status class, after a flush', async () => {
    const caller = await h.createKey(['read:devices']);
    await changeApiKey(h.keys.deps, caller.id, { rateLimits: [{ limit: 9, windowSeconds: 3600 }] });
    for (let i = 0; i < 6; i++) expect(await status(bases[i % 2]!, caller)).toBe(200);
    expect(await status(h.url, caller, '/api/NoSuchThing')).toBe(404);
    expect(await status(other.server.url, caller, '/api/Devices/Register')).toBe(405);
    catalog.handle = (_req, res) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end('{"error":"Internal server error","message":"boom"}');
    };
    expect(await status(h.url, caller)).toBe(500);
    expect(await status(other.server.url, caller)).toBe(500);
    expect(await status(h.url, caller)).toBe(500);
    expect(await status(other.server.url, caller)).toBe(429);
    expect(await status(h.url, caller)).toBe(429);
    await expectSpec401(h.url, { key: caller.key, secret: 'wrong-secret' }); // not the key's usage: the secret did not pass
    await sleep(FLUSH_MS * 4);
    const { rows } = await h.keys.deps.db.query<{ day: string; s2: string; s3: string; s4: string; s429: string; s5: string }>(
      "SELECT to_char(day, 'YYYY-MM-DD') AS day, status_2xx AS s2, status_3xx AS s3, status_4xx AS s4, status_429 AS s429, status_5xx AS s5 FROM api_key_daily_usage WHERE key_id = $1",
      [caller.id],
    );
    expect(
      rows.map((r) => ({ ...r, s2: Number(r.s2), s3: Number(r.s3), s4: Number(r.s4), s429: Number(r.s429), s5: Number(r.s5) })),
    ).toEqual([{ day: new Date().toISOString().slice(0, 10), s2: 6, s3: 0, s4: 2, s429: 2, s5: 3 }]);
  });
});

describe('the new routes through the gateway', () => {
  it('answer 401 without a valid key and 403 without system:full-access or without a user token', async () => {
    const plain = await h.createKey(['read:devices']);
    const system = await h.createKey(['system:full-access']);
    const id = plain.id;
    for (const [method, path] of [
      ['POST', `/api/ApiKeys/${id}/roll`],
      ['GET', `/api/ApiKeys/${id}/usage?days=7`],
    ] as const) {
      const noKey = await fetch(h.url + path, { method });
      expect(noKey.status).toBe(401);
      expect(await noKey.json()).toMatchObject(SPEC_401);
      const noScope = await fetch(h.url + path, { method, headers: { 'x-api-key': plain.key, 'x-api-secret': plain.secret } });
      expect(noScope.status).toBe(403);
      expect(await noScope.json()).toMatchObject({
        error: 'Insufficient permissions',
        message: 'Your API key does not have the required scope',
      });
      const noUser = await fetch(h.url + path, { method, headers: { 'x-api-key': system.key, 'x-api-secret': system.secret } });
      expect(noUser.status).toBe(403);
      expect(await noUser.json()).toMatchObject({
        error: 'Insufficient permissions',
        message: 'A valid user JWT with sufficient role is required',
      });
    }
  });
});
