import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { AUTHZ_LOOKUP_PATH, authzCacheKey, quotaCounterKey, quotaPeriodStart, type AuthzRecord, type UserQuota } from '@acs/contracts';
import { changeApiKey, createApiKey } from '@acs/keys-service';
import type { Cache } from '@acs/cache';
import type { Gateway } from '@acs/gateway';
import { startFakeUpstream, type FakeUpstream } from '@acs/testing';
import { count, startGatewayHarness, statuses, type GatewayHarness } from './harness.js';

/*
 * Issue 29 items 2 and 3: a user's plan quota counts every request of the user's keys, INCR'd in the request's
 * one Redis round trip beside the record reads, so two gateway replicas on one Redis share it exactly.
 */
let h: GatewayHarness;
let other: Gateway;
let catalog: FakeUpstream;
let identity: FakeUpstream;
let nextUser = 7100 + Math.floor(Math.random() * 1000) * 10;
const versions = new Map<number, number>();
/** The records identity would answer on a cache miss (the Redis-down test). */
const identityRecords = new Map<number, AuthzRecord>();
/** Users identity fails to answer for. */
const failingUsers = new Set<number>();

beforeAll(async () => {
  catalog = await startFakeUpstream();
  identity = await startFakeUpstream();
  identity.handle = (req, res) => {
    const { userId } = JSON.parse(identity.received.at(-1)?.body || '{}') as { userId?: number };
    if (userId !== undefined && failingUsers.has(userId)) {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end('{"error":"Internal server error","message":"down"}');
      return;
    }
    res.writeHead(req.url === AUTHZ_LOOKUP_PATH ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ record: identityRecords.get(userId ?? 0) ?? null }));
  };
  h = await startGatewayHarness({ CATALOG_URL: catalog.url, IDENTITY_URL: identity.url });
  other = await h.startAnotherGateway();
});
afterAll(async () => {
  await h.close();
  await catalog.close();
  await identity.close();
});
beforeEach(() => {
  catalog.received.length = 0;
});

/** Writes the user's authorization record as identity would (a higher version each time). */
async function setQuota(userId: number, quota: UserQuota | null): Promise<void> {
  const version = (versions.get(userId) ?? 0) + 1;
  versions.set(userId, version);
  const record: AuthzRecord = { userId, accountRole: 0, trialEndsAt: null, subscriptionEndsAt: null, planType: 0, disabled: false, quota };
  identityRecords.set(userId, record);
  await h.cache.setIfNewer(authzCacheKey(userId), version, JSON.stringify(record), 600);
}

type Caller = { id: string; key: string; secret: string };
async function userKey(ownerUserId: number): Promise<Caller> {
  const created = await createApiKey(h.keys.deps, { name: 'app', scopes: ['read:devices'], ownerUserId, environment: 'test' });
  return { id: created.apiKey.id, key: created.apiKey.key, secret: created.secret };
}

const callAt = (base: string, caller: Caller) =>
  fetch(`${base}/api/Dac`, { headers: { 'x-api-key': caller.key, 'x-api-secret': caller.secret } });
const monthEnd = (): number => {
  const now = new Date();
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
};

describe('plan quotas', () => {
  it("are exact across two gateways and all of a user's keys: 200 concurrent requests against 50 admit exactly 50", async () => {
    const user = nextUser++;
    await setQuota(user, { plan: 'monthly', perMonth: 50, perDay: null });
    const keys = [await userKey(user), await userKey(user)];
    const bases = [h.url, other.server.url];
    const results = await statuses(Array.from({ length: 200 }, (_, i) => callAt(bases[i % 2]!, keys[(i >> 1) % 2]!)));
    expect(count(results, 200)).toBe(50);
    expect(count(results, 429)).toBe(150);
    expect(catalog.received.length).toBe(50);
    expect(await h.cache.get(quotaCounterKey(user, 'month', quotaPeriodStart('month', Date.now())))).toBe('50');
  });

  it('answer a spent quota with 429 quota_exceeded, the plan and the reset in the hint, Retry-After, and the quota in the RateLimit headers', async () => {
    const user = nextUser++;
    await setQuota(user, { plan: 'starter', perMonth: 2, perDay: null });
    const caller = await userKey(user);
    const first = await callAt(h.url, caller);
    expect(first.status).toBe(200);
    const monthSeconds = Math.round((monthEnd() - Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), 1)) / 1000);
    expect(first.headers.get('ratelimit-policy')).toBe(`"quota-month";q=2;w=${monthSeconds}`);
    expect(first.headers.get('ratelimit')).toMatch(/^"quota-month";r=1;t=\d+$/);
    expect((await callAt(other.server.url, caller)).headers.get('ratelimit')).toMatch(/^"quota-month";r=0;t=\d+$/);
    const refused = await callAt(h.url, caller);
    expect(refused.status).toBe(429);
    const body = (await refused.json()) as Record<string, string>;
    const resetAt = new Date(monthEnd()).toISOString().replace('.000Z', 'Z');
    expect(body).toMatchObject({ error: 'Too many requests', code: 'quota_exceeded', requestId: expect.any(String) });
    expect(body.hint).toContain('"starter"');
    expect(body.hint).toContain(resetAt);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(Math.abs(retryAfter - (monthEnd() - Date.now()) / 1000)).toBeLessThanOrEqual(2);
    expect(refused.headers.get('ratelimit')).toBe(`"quota-month";r=0;t=${retryAfter}`);
  });

  it('apply a changed quota on the next request: spent, raised, admitted; removed, no quota headers', async () => {
    const user = nextUser++;
    await setQuota(user, { plan: 'trial', perMonth: 1, perDay: null });
    const caller = await userKey(user);
    expect(await statuses([callAt(h.url, caller), callAt(h.url, caller)])).toEqual(expect.arrayContaining([200, 429]));
    expect(await statuses([callAt(other.server.url, caller)])).toEqual([429]);
    await setQuota(user, { plan: 'monthly', perMonth: 2, perDay: null });
    const next = await callAt(other.server.url, caller);
    expect(next.status).toBe(200);
    expect(next.headers.get('ratelimit')).toMatch(/^"quota-month";r=0;/);
    expect(await statuses([callAt(h.url, caller)])).toEqual([429]);
    await setQuota(user, null);
    const free = await callAt(h.url, caller);
    expect(free.status).toBe(200);
    expect(free.headers.get('ratelimit')).toBeNull();
  });

  it("count only admitted requests: a per-key refusal does not spend the quota, a quota refusal does not spend the key's limit", async () => {
    const user = nextUser++;
    await setQuota(user, { plan: 'monthly', perMonth: 5, perDay: null });
    const caller = await userKey(user);
    await changeApiKey(h.keys.deps, caller.id, { rateLimits: [{ limit: 2, windowSeconds: 3600 }] });
    const limited = await statuses(Array.from({ length: 4 }, (_, i) => callAt(i % 2 ? h.url : other.server.url, caller)));
    expect(count(limited, 200)).toBe(2);
    // Both items on every answer: the key's window and the quota.
    const both = await callAt(h.url, caller);
    expect(both.headers.get('ratelimit-policy')).toMatch(/^"1h";q=2;w=3600, "quota-month";q=5;w=\d+$/);
    expect(both.headers.get('ratelimit')).toMatch(/^"1h";r=0;t=\d+, "quota-month";r=3;t=\d+$/);
    await changeApiKey(h.keys.deps, caller.id, { rateLimits: [{ limit: 10, windowSeconds: 3600 }] });
    const quota = await statuses(Array.from({ length: 5 }, (_, i) => callAt(i % 2 ? h.url : other.server.url, caller)));
    expect(count(quota, 200)).toBe(3);
    // 5 of 10 used in the hour (the quota's 2 refusals gave theirs back): a raised quota admits exactly 5 more.
    await setQuota(user, { plan: 'monthly', perMonth: 100, perDay: null });
    expect(count(await statuses(Array.from({ length: 7 }, () => callAt(h.url, caller))), 200)).toBe(5);
  });

  it('a daily cap refuses with the day reset, and both periods count', async () => {
    const user = nextUser++;
    await setQuota(user, { plan: 'monthly', perMonth: 1000, perDay: 3 });
    const caller = await userKey(user);
    expect(count(await statuses(Array.from({ length: 5 }, () => callAt(other.server.url, caller))), 200)).toBe(3);
    const refused = await callAt(h.url, caller);
    expect(refused.headers.get('ratelimit')).toMatch(/^"quota-day";r=0;t=\d+$/);
    expect(refused.headers.get('ratelimit-policy')).toMatch(/^"quota-day";q=3;w=86400, "quota-month";q=1000;w=\d+$/);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(86_400 - (Math.floor(Date.now() / 1000) % 86_400) + 1);
    expect(await h.cache.get(quotaCounterKey(user, 'month', quotaPeriodStart('month', Date.now())))).toBe('3');
  });

  it('cost nothing to a key without an owner (operator keys) and never count system keys', async () => {
    const created = await createApiKey(h.keys.deps, { name: 'ops', scopes: ['read:devices'], ownerUserId: null, environment: 'test' });
    const res = await callAt(h.url, { id: created.apiKey.id, key: created.apiKey.key, secret: created.secret });
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit')).toBeNull();
  });
});

describe('plan quotas while Redis is unavailable', () => {
  it("admit this replica's share of what the quota left, counted in process", async () => {
    const user = nextUser++;
    await setQuota(user, { plan: 'monthly', perMonth: 10, perDay: null });
    const caller = await userKey(user);
    const refused = () => Promise.reject(new Error('connection refused'));
    const down: Cache = {
      ...h.cache,
      get: refused,
      mget: refused,
      mgetVersioned: refused,
      requestReads: { exchange: refused, decrement: () => {}, expireAt: () => {} },
    };
    const replica = await h.startAnotherGateway({ cache: down, env: { GATEWAY_REPLICAS: '2' } });
    const results = await statuses(Array.from({ length: 8 }, () => callAt(replica.server.url, caller)));
    expect(count(results, 200)).toBe(5);
    expect(count(results, 429)).toBe(3);
  });

  it('a key-only request never fails because identity cannot answer for its owner: it goes without the quota', async () => {
    const user = nextUser++;
    await setQuota(user, { plan: 'monthly', perMonth: 1, perDay: null });
    failingUsers.add(user);
    const caller = await userKey(user);
    const refused = () => Promise.reject(new Error('connection refused'));
    const down: Cache = {
      ...h.cache,
      get: refused,
      mget: refused,
      mgetVersioned: refused,
      requestReads: { exchange: refused, decrement: () => {}, expireAt: () => {} },
    };
    const replica = await h.startAnotherGateway({ cache: down });
    const answers = await Promise.all([callAt(replica.server.url, caller), callAt(replica.server.url, caller)]);
    expect(answers.map((res) => res.status)).toEqual([200, 200]);
    expect(answers[0]!.headers.get('ratelimit')).toBeNull();
  });
});
