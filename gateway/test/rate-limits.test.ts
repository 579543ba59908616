import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';
import { JWKS_PATH, apiKeyCacheKey, authzCacheKey } from '@acs/contracts';
import { changeApiKey, createApiKey } from '@acs/keys-service';
import { metricValue, startFakeUpstream, type FakeUpstream } from '@acs/testing';
import { createMemoryCache } from '@acs/cache';
import type { Gateway } from '@acs/gateway';
import { count, startGatewayHarness, statuses, type GatewayHarness } from './harness.js';

/*
 * Issue 16: per-key rate limits, counted by INCRs in the round trip that reads the key (issue 25: no script),
 * so two gateway replicas on one Redis share every counter exactly.
 */
let h: GatewayHarness;
let catalog: FakeUpstream;
let other: Gateway;
let identity: FakeUpstream;
let device: FakeUpstream;
let signingKey: CryptoKey;
let forgingKey: CryptoKey;
let jwk: JWK;
const USER_ID = 5151;
const DISABLED_USER_ID = 5152;

async function token(sub: number, key: CryptoKey): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ email: 'u@example.com', role: 0, plan_type: 0 })
    .setProtectedHeader({ alg: 'EdDSA', kid: 'k1', typ: 'JWT' })
    .setSubject(String(sub))
    .setIssuedAt(now - 5)
    .setIssuer('acs-identity')
    .setAudience('acs-api')
    .setExpirationTime(now + 600)
    .sign(key);
}

beforeAll(async () => {
  const pair = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  signingKey = pair.privateKey;
  forgingKey = (await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true })).privateKey;
  jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'EdDSA', use: 'sig' };
  identity = await startFakeUpstream();
  identity.handle = (req, res) => {
    res.writeHead(req.url === JWKS_PATH ? 200 : 404, { 'content-type': 'application/json' });
    res.end(req.url === JWKS_PATH ? JSON.stringify({ keys: [jwk] }) : '{"error":"not_found","message":"no"}');
  };
  device = await startFakeUpstream();
  catalog = await startFakeUpstream();
  h = await startGatewayHarness({ CATALOG_URL: catalog.url, IDENTITY_URL: identity.url, DEVICE_URL: device.url });
  other = await h.startAnotherGateway();
  for (const [userId, disabled] of [
    [USER_ID, false],
    [DISABLED_USER_ID, true],
  ] as const) {
    const record = { userId, accountRole: 0, trialEndsAt: null, subscriptionEndsAt: null, planType: 0, disabled };
    await h.cache.setIfNewer(authzCacheKey(userId), 1, JSON.stringify(record), 600);
  }
});
afterAll(async () => {
  await h.close();
  await catalog.close();
  await identity.close();
  await device.close();
});
beforeEach(() => {
  catalog.received.length = 0;
  device.received.length = 0;
});

type Caller = { id: string; key: string; secret: string };

async function limitedKey(rateLimits: { limit: number; windowSeconds: number }[] | null, scopes = ['read:devices']): Promise<Caller> {
  const caller = await h.createKey(scopes);
  if (rateLimits) await changeApiKey(h.keys.deps, caller.id, { rateLimits });
  return caller;
}

const callAt = (base: string, caller: Caller, path = '/api/Dac', method = 'GET', headers: Record<string, string> = {}) =>
  fetch(base + path, { method, headers: { 'x-api-key': caller.key, 'x-api-secret': caller.secret, ...headers } });

describe('rate limits per API key', () => {
  it('is exact across two gateway replicas: 200 concurrent requests against 50 per hour admit exactly 50', async () => {
    const caller = await limitedKey([{ limit: 50, windowSeconds: 3600 }]);
    const bases = [h.url, other.server.url];
    const results = await statuses(Array.from({ length: 200 }, (_, i) => callAt(bases[i % 2]!, caller)));
    expect(count(results, 200)).toBe(50);
    expect(count(results, 429)).toBe(150);
    expect(catalog.received.length).toBe(50);
  });

  it('answers 429 in the error shape with Retry-After, and RateLimit headers on every answer', async () => {
    const caller = await limitedKey([
      { limit: 2, windowSeconds: 60 },
      { limit: 1000, windowSeconds: 86_400 },
    ]);
    const first = await callAt(h.url, caller);
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-policy')).toBe('"1m";q=2;w=60, "1d";q=1000;w=86400');
    // t: the seconds until the running minute ends (periods start on whole minutes).
    const t = Number(/^"1m";r=1;t=(\d+)$/.exec(first.headers.get('ratelimit') ?? '')?.[1]);
    expect(Math.abs(t - (60 - (Math.floor(Date.now() / 1000) % 60)))).toBeLessThanOrEqual(1);
    const second = await callAt(other.server.url, caller);
    expect(second.headers.get('ratelimit')).toMatch(/^"1m";r=0;t=\d+$/);
    const refused = await callAt(h.url, caller);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toContain('application/json');
    const body = (await refused.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      error: 'Too many requests',
      message: expect.stringContaining('rate limit'),
      code: 'rate_limited',
      requestId: expect.any(String),
    });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(body.hint).toContain(`Retry after ${retryAfter} s`);
    expect(Number.isInteger(retryAfter)).toBe(true);
    // The minute is full on its own: the rest of it, then half of the next (until 1 + 2 x the sliding share <= 2).
    expect(retryAfter).toBeGreaterThanOrEqual(30);
    expect(retryAfter).toBeLessThanOrEqual(91);
    expect(refused.headers.get('ratelimit')).toBe(`"1m";r=0;t=${retryAfter}`);
    expect(refused.headers.get('ratelimit-policy')).toBe('"1m";q=2;w=60, "1d";q=1000;w=86400');
    expect(catalog.received.length).toBe(2);
  });

  it("adds the RateLimit headers to the service's own headers, and to the gateway's 502 when the service fails", async () => {
    const caller = await limitedKey([{ limit: 5, windowSeconds: 3600 }]);
    const defaultHandle = catalog.handle;
    try {
      catalog.handle = (_req, res) => {
        res.writeHead(404, { 'content-type': 'application/json', etag: '"v1"' });
        res.end('{"error":"Not found","message":"no such DAC"}');
      };
      const missing = await callAt(h.url, caller);
      expect(missing.status).toBe(404);
      expect(missing.headers.get('etag')).toBe('"v1"');
      expect(missing.headers.get('ratelimit')).toMatch(/^"1h";r=4;t=\d+$/);
      expect(missing.headers.get('ratelimit-policy')).toBe('"1h";q=5;w=3600');
      await missing.text();
      catalog.handle = (req) => req.socket.destroy();
      const broken = await callAt(h.url, caller);
      expect(broken.status).toBe(502);
      expect(broken.headers.get('ratelimit')).toMatch(/^"1h";r=3;t=\d+$/);
      expect(((await broken.json()) as { error: string }).error).toBe('Bad gateway');
    } finally {
      catalog.handle = defaultHandle;
    }
  });

  it('admits again once the window has room, and not at once at a period edge (the previous period still counts)', async () => {
    // 2 per 2 s. Right after a full period the next one starts with nearly 2 still counted; two periods on, none.
    const caller = await limitedKey([{ limit: 2, windowSeconds: 2 }]);
    expect(await statuses([callAt(h.url, caller), callAt(other.server.url, caller), callAt(h.url, caller)])).toEqual(
      expect.arrayContaining([200, 200, 429]),
    );
    await new Promise((resolve) => setTimeout(resolve, 2000 - (Date.now() % 2000) + 20));
    expect(count(await statuses([callAt(h.url, caller), callAt(other.server.url, caller)]), 200)).toBeLessThanOrEqual(1);
    await new Promise((resolve) => setTimeout(resolve, 4100));
    expect(await statuses([callAt(h.url, caller), callAt(other.server.url, caller), callAt(h.url, caller)])).toEqual(
      expect.arrayContaining([200, 200, 429]),
    );
  });

  it('a refused request counts in no window: the day still admits what the hour refused', async () => {
    const caller = await limitedKey([
      { limit: 3, windowSeconds: 3600 },
      { limit: 5, windowSeconds: 86_400 },
    ]);
    const burst = await statuses(Array.from({ length: 10 }, (_, i) => callAt(i % 2 ? h.url : other.server.url, caller)));
    expect(count(burst, 200)).toBe(3);
    // Lift the hour, keep the day (same window, same counter): the 7 refused did not count in it, so 2 more fit (3 + 2 = 5).
    await changeApiKey(h.keys.deps, caller.id, { rateLimits: [{ limit: 5, windowSeconds: 86_400 }] });
    const later = await statuses(Array.from({ length: 4 }, () => callAt(other.server.url, caller)));
    expect(count(later, 200)).toBe(2);
    const refused = await callAt(h.url, caller);
    expect(refused.status).toBe(429);
    // The day is full on its own: the rest of it, then a fifth of the next (until 1 + 5 x the sliding share <= 5).
    const retryAfter = Number(refused.headers.get('retry-after'));
    const restOfDay = 86_400 - (Math.floor(Date.now() / 1000) % 86_400);
    expect(Math.abs(retryAfter - (restOfDay + 17_280))).toBeLessThanOrEqual(2);
    expect(refused.headers.get('ratelimit')).toMatch(/^"1d";r=0;t=\d+$/);
  });

  it('invalid requests consume nothing: wrong secret (401), unknown route (404), wrong method (405), missing scope (403), user route without a valid token or user (403)', async () => {
    const caller = await limitedKey([{ limit: 2, windowSeconds: 3600 }], ['read:devices', 'auth:login']);
    // A forged token claims a real, enabled user: it is counted with the read and given back (DECR) when the signature fails.
    const forged = `Bearer ${await token(USER_ID, forgingKey)}`;
    const disabled = `Bearer ${await token(DISABLED_USER_ID, signingKey)}`;
    const invalid = await statuses([
      ...Array.from({ length: 5 }, () => callAt(h.url, { ...caller, secret: `${caller.secret}x` })),
      ...Array.from({ length: 5 }, () => callAt(h.url, caller, '/api/Nope')),
      ...Array.from({ length: 5 }, () => callAt(other.server.url, caller, '/api/Dac', 'DELETE')),
      ...Array.from({ length: 5 }, () => callAt(h.url, caller, '/api/Users/Register', 'POST')),
      ...Array.from({ length: 5 }, () => callAt(other.server.url, caller, '/api/Devices')),
      ...Array.from({ length: 5 }, () => callAt(h.url, caller, '/api/Devices', 'GET', { authorization: 'Bearer not.a.token' })),
      ...Array.from({ length: 5 }, (_, i) =>
        callAt(i % 2 ? h.url : other.server.url, caller, '/api/Devices', 'GET', { authorization: forged }),
      ),
      ...Array.from({ length: 5 }, (_, i) =>
        callAt(i % 2 ? h.url : other.server.url, caller, '/api/Devices', 'GET', { authorization: disabled }),
      ),
    ]);
    expect(invalid).toEqual([...Array(5).fill(401), ...Array(5).fill(404), ...Array(5).fill(405), ...Array(25).fill(403)]);
    // Refunds of the forged ones travel on their own; they are in Redis by the time the next read is (same connection order).
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await statuses([callAt(h.url, caller), callAt(other.server.url, caller), callAt(h.url, caller)])).toEqual(
      expect.arrayContaining([200, 200, 429]),
    );
  });

  it("a change of limits applies on the key's next request on both replicas; clearing them removes the headers", async () => {
    const caller = await limitedKey([{ limit: 1, windowSeconds: 3600 }]);
    expect(await statuses([callAt(h.url, caller)])).toEqual([200]);
    expect(await statuses([callAt(h.url, caller), callAt(other.server.url, caller)])).toEqual([429, 429]);
    await changeApiKey(h.keys.deps, caller.id, { rateLimits: [{ limit: 3, windowSeconds: 3600 }] });
    const a = await callAt(h.url, caller);
    const b = await callAt(other.server.url, caller);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(b.headers.get('ratelimit-policy')).toBe('"1h";q=3;w=3600');
    await changeApiKey(h.keys.deps, caller.id, { rateLimits: [{ limit: 1, windowSeconds: 60 }] });
    // Concurrent: either replica may be the one admitted.
    expect((await statuses([callAt(other.server.url, caller), callAt(h.url, caller)])).sort()).toEqual([200, 429]);
    await changeApiKey(h.keys.deps, caller.id, { rateLimits: null });
    const free = await Promise.all([callAt(h.url, caller), callAt(other.server.url, caller)]);
    expect(free.map((res) => res.status)).toEqual([200, 200]);
    for (const res of free) {
      expect(res.headers.get('ratelimit')).toBeNull();
      expect(res.headers.get('ratelimit-policy')).toBeNull();
    }
  });

  it('editing a limit keeps what its window used: 3/3600s used up, then 4/3600s admits exactly one more (issue 24)', async () => {
    const caller = await limitedKey([{ limit: 3, windowSeconds: 3600 }]);
    const bases = [h.url, other.server.url];
    expect(count(await statuses(Array.from({ length: 5 }, (_, i) => callAt(bases[i % 2]!, caller))), 200)).toBe(3);
    await changeApiKey(h.keys.deps, caller.id, { rateLimits: [{ limit: 4, windowSeconds: 3600 }] });
    expect(count(await statuses(Array.from({ length: 4 }, (_, i) => callAt(bases[i % 2]!, caller))), 200)).toBe(1);
    // Lowering it grants nothing; raising it again grants exactly the difference.
    await changeApiKey(h.keys.deps, caller.id, { rateLimits: [{ limit: 2, windowSeconds: 3600 }] });
    expect(await statuses([callAt(h.url, caller), callAt(other.server.url, caller)])).toEqual([429, 429]);
    await changeApiKey(h.keys.deps, caller.id, { rateLimits: [{ limit: 6, windowSeconds: 3600 }] });
    expect(count(await statuses(Array.from({ length: 4 }, (_, i) => callAt(bases[i % 2]!, caller))), 200)).toBe(2);
  });

  it('counts refusals in gateway_rate_limited_total by route', async () => {
    const caller = await limitedKey([{ limit: 1, windowSeconds: 3600 }]);
    const scrape = async () => (await fetch(`${h.gateway.metricsServer!.url}/metrics`)).text();
    const before = metricValue(await scrape(), 'gateway_rate_limited_total', { method: 'GET', route: '/api/Dac' }) ?? 0;
    await statuses([callAt(h.url, caller), callAt(h.url, caller), callAt(h.url, caller)]);
    expect(metricValue(await scrape(), 'gateway_rate_limited_total', { method: 'GET', route: '/api/Dac' })).toBe(before + 2);
  });
});

describe('where the read did not count the request', () => {
  it('a key record missing from Redis is refilled and the request counted all the same', async () => {
    const caller = await limitedKey([{ limit: 2, windowSeconds: 3600 }]);
    for (let i = 0; i < 2; i++) {
      await h.cache.del(apiKeyCacheKey(caller.key));
      expect(await statuses([callAt(i % 2 ? h.url : other.server.url, caller)])).toEqual([200]);
    }
    await h.cache.del(apiKeyCacheKey(caller.key));
    expect(await statuses([callAt(h.url, caller)])).toEqual([429]);
  });

  it('a gateway on the in-process cache (the embedded default) limits in process', async () => {
    const memory = createMemoryCache();
    const embedded = await h.startAnotherGateway({ cache: memory });
    try {
      const caller = await limitedKey([{ limit: 3, windowSeconds: 3600 }]);
      const results = await Promise.all(Array.from({ length: 5 }, () => callAt(embedded.server.url, caller)));
      expect(results.map((res) => res.status).sort()).toEqual([200, 200, 200, 429, 429]);
      expect(results.find((res) => res.status === 429)!.headers.get('retry-after')).toMatch(/^\d+$/);
    } finally {
      await memory.close();
    }
  });
});

describe('the in-process limiter', () => {
  it('keeps what a window used across an edit of its count, as Redis does (issue 24)', async () => {
    const memory = createMemoryCache();
    const embedded = await h.startAnotherGateway({ cache: memory });
    try {
      const caller = await limitedKey([{ limit: 3, windowSeconds: 3600 }]);
      expect(count(await statuses(Array.from({ length: 4 }, () => callAt(embedded.server.url, caller))), 200)).toBe(3);
      await changeApiKey(h.keys.deps, caller.id, { rateLimits: [{ limit: 4, windowSeconds: 3600 }] });
      expect(count(await statuses(Array.from({ length: 3 }, () => callAt(embedded.server.url, caller))), 200)).toBe(1);
    } finally {
      await memory.close();
    }
  });
});

describe('user routes', () => {
  it('count a request with a valid token like any other', async () => {
    const caller = await limitedKey([{ limit: 2, windowSeconds: 3600 }], ['auth:login']);
    const bearer = { authorization: `Bearer ${await token(USER_ID, signingKey)}` };
    const results = await statuses(
      [0, 1, 2, 3].map((i) => callAt(i % 2 ? h.url : other.server.url, caller, '/api/Devices', 'GET', bearer)),
    );
    expect(count(results, 200)).toBe(2);
    expect(count(results, 429)).toBe(2);
    expect(device.received.length).toBe(2);
  });
});

describe('defaults by environment', () => {
  let withDefaults: Gateway;
  beforeAll(async () => {
    withDefaults = await h.startAnotherGateway({ env: { RATE_LIMITS_TEST: '2/1h', RATE_LIMITS_LIVE: '1000/1s' } });
  });

  it("apply to keys without their own list, by the key's environment; a key's own list replaces them", async () => {
    const plain = await limitedKey(null);
    const results = await statuses(Array.from({ length: 4 }, () => callAt(withDefaults.server.url, plain)));
    expect(count(results, 200)).toBe(2);
    const live = await createApiKey(h.keys.deps, { name: 'live', scopes: ['read:devices'], ownerUserId: null, environment: 'live' });
    const liveCaller = { id: live.apiKey.id, key: live.apiKey.key, secret: live.secret };
    const liveAnswer = await callAt(withDefaults.server.url, liveCaller);
    expect(liveAnswer.headers.get('ratelimit-policy')).toBe('"1s";q=1000;w=1');
    const own = await limitedKey([{ limit: 5, windowSeconds: 3600 }]);
    expect(count(await statuses(Array.from({ length: 6 }, () => callAt(withDefaults.server.url, own))), 200)).toBe(5);
  });

  it('never limit system:full-access keys', async () => {
    const system = await limitedKey(null, ['system:full-access']);
    const results = await Promise.all(Array.from({ length: 5 }, () => callAt(withDefaults.server.url, system)));
    expect(results.map((res) => res.status)).toEqual([200, 200, 200, 200, 200]);
    expect(results[0]!.headers.get('ratelimit')).toBeNull();
    const withOwn = await limitedKey([{ limit: 1, windowSeconds: 3600 }], ['system:full-access']);
    expect(await statuses([callAt(withDefaults.server.url, withOwn), callAt(withDefaults.server.url, withOwn)])).toEqual([200, 200]);
  });
});
