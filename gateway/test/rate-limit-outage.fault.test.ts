import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createRedisCache, type Cache } from '@acs/cache';
import { changeApiKey } from '@acs/keys-service';
import { createLogger } from '@acs/logger';
import { startFaultProxy, testServerUrl, type FaultProxy, startFakeUpstream, type FakeUpstream } from '@acs/testing';
import type { Gateway } from '@acs/gateway';
import { startGatewayHarness, type GatewayHarness } from './harness.js';

// Fault injection, issue 16: Redis goes away under a gateway that applies rate limits. The gateway must
// neither let a key run unlimited nor refuse everyone: each replica admits its share of every window
// (limit / GATEWAY_REPLICAS) in process, and goes back to the shared Redis counters when Redis returns.

let redis: FaultProxy;
let h: GatewayHarness;
let catalog: FakeUpstream;
let faultyCache: Cache;
let gateway: Gateway;

beforeAll(async () => {
  redis = await startFaultProxy(testServerUrl('REDIS_URL'), 6379);
  catalog = await startFakeUpstream();
  // The keys service talks to Redis directly; only this gateway's Redis goes through the fault proxy.
  h = await startGatewayHarness({ CATALOG_URL: catalog.url });
  faultyCache = createRedisCache({
    url: redis.url,
    keyPrefix: h.redisPrefix,
    logger: createLogger({ name: 'faulty-cache', level: 'silent' }),
  });
  gateway = await h.startAnotherGateway({ cache: faultyCache, env: { GATEWAY_REPLICAS: '2' } });
}, 60_000);

afterAll(async () => {
  await h?.close();
  await faultyCache?.close();
  await catalog?.close();
  await redis?.close();
});

async function eventually(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('rate limits while Redis is unavailable', () => {
  it("admit this replica's share of each window in process, then use the shared counters again", async () => {
    const caller = await h.createKey(['read:devices']);
    await changeApiKey(h.keys.deps, caller.id, { rateLimits: [{ limit: 10, windowSeconds: 3600 }] });
    const call = () => fetch(`${gateway.server.url}/api/Dac`, { headers: { 'x-api-key': caller.key, 'x-api-secret': caller.secret } });
    for (let i = 0; i < 2; i++) expect((await call()).status).toBe(200);

    redis.cut();
    try {
      const during = [];
      for (let i = 0; i < 8; i++) {
        const res = await call();
        during.push({ status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() });
      }
      // 10 per hour over 2 replicas: this one admits 5 on its own, and refuses the rest with a proper 429.
      expect(during.filter((r) => r.status === 200)).toHaveLength(5);
      const refused = during.filter((r) => r.status === 429);
      expect(refused).toHaveLength(3);
      for (const r of refused) {
        expect(r.body).toMatchObject({ error: 'Too many requests' });
        expect(Number(r.retryAfter)).toBeGreaterThan(0);
      }
    } finally {
      redis.restore();
    }

    // Back on Redis: the shared counter held the 2 admitted before the outage, so the next answer says 7 left.
    let last: Response | null = null;
    await eventually(async () => {
      last = await call();
      await last.arrayBuffer();
      return last.status === 200;
    });
    // 3 admitted in Redis: 7 left; t: the seconds until the running hour ends.
    const [, remaining, t] = /^"1h";r=(\d+);t=(\d+)$/.exec(last!.headers.get('ratelimit') ?? '') ?? [];
    expect(Number(remaining)).toBe(7);
    expect(Math.abs(Number(t) - (3600 - (Math.floor(Date.now() / 1000) % 3600)))).toBeLessThanOrEqual(1);
    expect(last!.headers.get('ratelimit-policy')).toBe('"1h";q=10;w=3600');
  }, 30_000);
});
