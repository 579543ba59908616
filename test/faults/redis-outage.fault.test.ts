import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createRedisCache } from '@acs/cache';
import { apiKeyCacheKey } from '@acs/contracts';
import { SPEC_ERRORS } from '@acs/errors';
import { createApiKey, revokeApiKey } from '@acs/keys-service';
import { startFaultProxy, testServerUrl, type FaultProxy } from '@acs/testing';
import { startSystemUnderTest, type SystemUnderTest } from '../e2e/system-harness.js';
import { appKey, bearer, json, newUser, type Auth, type User } from '../e2e/actors.js';

// Fault injection: Redis goes away under a running system and comes back. The gateway must keep
// answering from the owning services' databases, never let a change slip past the cache, and pick
// Redis up again by itself.

/** Fail closed, fast: a request during the outage is answered well within a client's patience. */
const OUTAGE_ANSWER_MS = 3_000;

let redis: FaultProxy;
let sut: SystemUnderTest;
let reader: Auth & { id: string };
let accounts: Auth;
let user: User;

async function eventually(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function timed(request: () => Promise<Response>): Promise<{ status: number; body: unknown; ms: number }> {
  const started = performance.now();
  const response = await request();
  return { status: response.status, body: await response.json(), ms: performance.now() - started };
}

beforeAll(async () => {
  redis = await startFaultProxy(testServerUrl('REDIS_URL'), 6379);
  sut = await startSystemUnderTest({ REDIS_URL: redis.url, METRICS_PORT: '0' }); // readiness details: on the metrics listener
  const created = await createApiKey(sut.system.keys.deps, {
    name: 'fault reader',
    scopes: ['read:devices'],
    ownerUserId: null,
    environment: 'test',
  });
  reader = { id: created.apiKey.id, key: created.apiKey.key, secret: created.secret };
  accounts = await appKey(sut, ['auth:register', 'auth:login', 'read:devices']);
  user = await newUser(sut, accounts);
}, 60_000);

afterAll(async () => {
  await sut?.stop();
  await redis?.close();
});

describe('Redis outage under a running system', () => {
  it('keeps serving layer 1 and layer 2 from the owning services while Redis is down, with the same answers', async () => {
    expect((await sut.call('GET', '/api/Dac', reader)).status).toBe(200);
    redis.cut();
    try {
      const ok = await timed(() => sut.call('GET', '/api/Dac?pageSize=5', reader));
      expect(ok.status).toBe(200);
      expect(ok.ms).toBeLessThan(OUTAGE_ANSWER_MS);
      expect((ok.body as { items: unknown[] }).items).toHaveLength(5);

      const wrongSecret = await timed(() => sut.call('GET', '/api/Dac', { key: reader.key, secret: `${reader.secret}x` }));
      expect(wrongSecret).toMatchObject({ status: 401, body: { message: SPEC_ERRORS.missingApiKey.message } });
      const outOfScope = await timed(() =>
        sut.call('POST', '/api/Users/Login', reader, { headers: { 'content-type': 'application/json' }, body: '{}' }),
      );
      expect(outOfScope).toMatchObject({ status: 403, body: { message: SPEC_ERRORS.insufficientScope.message } });

      // Layer 2: the user's authorization record comes from identity instead of Redis.
      const devices = await timed(() => sut.call('GET', '/api/Devices', accounts, bearer(user.token)));
      expect(devices.status).toBe(200);
      expect(devices.ms).toBeLessThan(OUTAGE_ANSWER_MS);

      const readiness = await sut.call('GET', '/readyz', null);
      expect(readiness.status).toBe(503);
      expect(await readiness.json()).toEqual({ ready: false });
      const details = await fetch(`${sut.system.gateway.metricsServer!.url}/readyz`);
      expect(((await details.json()) as { checks: Record<string, string> }).checks.cache).not.toBe('ok');
    } finally {
      redis.restore();
    }
  }, 30_000);

  it('refuses a revocation it cannot write through, changing nothing; once Redis is back the revocation applies on the next request', async () => {
    redis.cut();
    try {
      await expect(revokeApiKey(sut.system.keys.deps, reader.id)).rejects.toThrow();
      // The database was not changed either (the change rolled back), so the gateway's answer stays consistent.
      expect((await sut.call('GET', '/api/Dac', reader)).status).toBe(200);
    } finally {
      redis.restore();
    }
    await eventually(async () => (await sut.call('GET', '/readyz', null)).status === 200);
    await eventually(async () => {
      try {
        await revokeApiKey(sut.system.keys.deps, reader.id);
        return true;
      } catch {
        return false;
      }
    });
    const after = await sut.call('GET', '/api/Dac', reader);
    expect(after.status).toBe(401);
    expect(await after.json()).toMatchObject({ message: SPEC_ERRORS.missingApiKey.message });
  }, 30_000);

  it('answers a key change it cannot write through with 503 and Retry-After through the API, then applies it once Redis is back', async () => {
    const dashboard = await appKey(sut, ['system:full-access']);
    const created = await sut.call(
      'POST',
      '/api/ApiKeys',
      dashboard,
      bearer(user.token, json({ name: 'fault api key', scopes: 'read:devices' })),
    );
    expect(created.status).toBe(201); // the user is on the default trial: role 1
    const { id, key, secret } = (await created.json()) as { id: string; key: string; secret: string };
    const revoke = () => sut.call('DELETE', `/api/ApiKeys/${id}`, dashboard, bearer(user.token));

    redis.cut();
    try {
      const refused = await revoke();
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('5');
      expect(await refused.json()).toMatchObject({ error: 'Service unavailable', message: expect.any(String) });
      expect((await sut.call('GET', '/api/Dac', { key, secret })).status).toBe(200);
    } finally {
      redis.restore();
    }
    await eventually(async () => (await revoke()).status === 200);
    expect((await sut.call('GET', '/api/Dac', { key, secret })).status).toBe(401);
  }, 30_000);

  it('reads Redis again after the outage (the cut connection is replaced without a restart)', async () => {
    const probe = await createApiKey(sut.system.keys.deps, {
      name: 'fault probe',
      scopes: ['read:devices'],
      ownerUserId: null,
      environment: 'test',
    });
    const probeAuth = { key: probe.apiKey.key, secret: probe.secret };
    redis.cut();
    expect((await sut.call('GET', '/api/Dac', probeAuth)).status).toBe(200);
    redis.restore();
    await eventually(async () => (await sut.call('GET', '/readyz', null)).status === 200);
    await eventually(async () => (await sut.call('GET', '/api/Dac', probeAuth)).status === 200);

    // Mark the cached record revoked behind the database's back: only a gateway that reads Redis again can see it.
    const cache = createRedisCache({ url: testServerUrl('REDIS_URL'), keyPrefix: sut.redisPrefix });
    try {
      const cached = await cache.getVersioned(apiKeyCacheKey(probe.apiKey.key));
      expect(cached).not.toBeNull();
      const tampered = { ...(JSON.parse(cached!.value) as Record<string, unknown>), revoked: true };
      expect(await cache.setIfNewer(apiKeyCacheKey(probe.apiKey.key), cached!.version + 1, JSON.stringify(tampered), 300)).toBe(true);
      await eventually(async () => (await sut.call('GET', '/api/Dac', probeAuth)).status === 401, 5_000);
    } finally {
      await cache.close();
    }
  }, 30_000);
});
