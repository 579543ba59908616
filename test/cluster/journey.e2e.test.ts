import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { apiKeyCacheKey, apiKeyCreatedResponseSchema, rateLimitCacheKey } from '@acs/contracts';
import { setTrialEnd } from '@acs/identity-service';
import { createApiKey } from '@acs/keys-service';
import { ensureTestCluster } from '@acs/testing';
import type { ServiceProcess } from '../../bench/src/processes.js';
import { appKey, bearer, json, newUser as createUser, PASSWORD, type Auth } from '../e2e/actors.js';
import { startSystemUnderTest, type SystemUnderTest } from '../e2e/system-harness.js';
import { startSecondGateway } from '../e2e/second-gateway.js';
import { clusterView, type ClusterView } from './cluster-system.js';

// Issue 25 item 3: the whole system on a real Redis Cluster (3 primaries, 3 replicas; scripts/
// start-redis-cluster.sh), REDIS_CLUSTER_NODES in place of REDIS_URL, two gateway processes.
// The same promises as on one Redis: a change is seen on the next request by every gateway,
// limits are exact across gateways, sign-in limits count. The gateway's per-request exchange
// runs on the cluster's RequestReads (libs/cache/src/cluster-request-reads.ts).

let sut: SystemUnderTest;
let second: ServiceProcess;
let app: Auth;
let dashboard: Auth;
let view: ClusterView;

beforeAll(async () => {
  await ensureTestCluster();
  sut = await startSystemUnderTest({ KEY_USAGE_FLUSH_MS: '200' }, { redisCluster: true });
  second = await startSecondGateway(sut);
  app = await appKey(sut, ['auth:register', 'auth:login', 'read:devices']);
  dashboard = await appKey(sut, ['system:full-access']);
  view = clusterView();
}, 120_000);

afterAll(async () => {
  view?.close();
  await second?.stop();
  await sut?.stop();
});

const viaSecond = (path: string, auth: Auth, init: RequestInit = {}) =>
  fetch(second.url + path, {
    ...init,
    headers: { ...(init.headers as Record<string, string>), 'x-api-key': auth.key, 'x-api-secret': auth.secret },
  });

describe('the system on a Redis Cluster', () => {
  it('a user key: created, used, scopes changed, revoked, each seen on the next request by both gateways', async () => {
    const user = await createUser(sut, app);
    const created = apiKeyCreatedResponseSchema.parse(
      await (await sut.call('POST', '/api/ApiKeys', dashboard, bearer(user.token, json({ name: 'cluster', scopes: 'auth:login' })))).json(),
    );
    const auth = { key: created.key, secret: created.secret };
    // The record was written through to the cluster, under the system's prefix.
    expect(await view.raw.exists(`${sut.redisPrefix}${apiKeyCacheKey(created.key)}`)).toBe(1);
    expect((await sut.call('GET', '/api/Dac', auth)).status).toBe(403);
    expect((await viaSecond('/api/Dac', auth)).status).toBe(403);

    const patch = (scopes: string) => sut.call('PATCH', `/api/ApiKeys/${created.id}`, dashboard, bearer(user.token, json({ scopes })));
    expect((await patch('auth:login read:devices')).status).toBe(200);
    expect((await sut.call('GET', '/api/Dac', auth)).status).toBe(200);
    expect((await viaSecond('/api/Dac', auth)).status).toBe(200);

    expect((await patch('auth:login')).status).toBe(200);
    expect((await sut.call('GET', '/api/Dac', auth)).status).toBe(403);
    expect((await viaSecond('/api/Dac', auth)).status).toBe(403);

    expect((await sut.call('DELETE', `/api/ApiKeys/${created.id}`, dashboard, bearer(user.token))).status).toBe(200);
    expect((await sut.call('GET', '/api/Dac', auth)).status).toBe(401);
    expect((await viaSecond('/api/Dac', auth)).status).toBe(401);
  }, 30_000);

  it('limits are exact across two gateways: 200 concurrent requests against 50 an hour admit exactly 50', async () => {
    const { apiKey, secret } = await createApiKey(sut.system.keys.deps, {
      name: 'limited',
      scopes: ['read:devices'],
      ownerUserId: null,
      environment: 'test',
      rateLimits: [{ limit: 50, windowSeconds: 3600 }],
    });
    const auth = { key: apiKey.key, secret };
    const requests = Array.from({ length: 200 }, (_, i) =>
      (i % 2 === 0 ? sut.call('GET', '/api/Dac?pageSize=1', auth) : viaSecond('/api/Dac?pageSize=1', auth)).then(async (res) => {
        await res.arrayBuffer();
        return { status: res.status, retryAfter: res.headers.get('retry-after') };
      }),
    );
    const answers = await Promise.all(requests);
    const count = (status: number) => answers.filter((a) => a.status === status).length;
    expect({ admitted: count(200), refused: count(429) }).toEqual({ admitted: 50, refused: 150 });
    expect(answers.filter((a) => a.status === 429).every((a) => Number(a.retryAfter) > 0)).toBe(true);
    // The limiter's counter sits in the cluster, in the key record's slot (one MGET and one INCR on one primary),
    // and holds the admitted requests only (the refused ones were given back).
    const hour = Math.floor(Date.now() / 3_600_000) * 3600;
    const counter = `${sut.redisPrefix}${rateLimitCacheKey(apiKey.key)}:3600:${hour}`;
    const [recordSlot, stateSlot] = await Promise.all(
      [`${sut.redisPrefix}${apiKeyCacheKey(apiKey.key)}`, counter].map((key) => view.raw.cluster('KEYSLOT', key)),
    );
    expect(stateSlot).toBe(recordSlot);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await view.raw.get(counter)).toBe('50');
    expect(await view.raw.pttl(counter)).toBeGreaterThan(3_600_000);
  }, 60_000);

  it('a user route (layer 1 + 2) on both gateways; the end of a trial is seen on the next request', async () => {
    const user = await createUser(sut, app);
    expect((await sut.call('GET', '/api/ApiKeys', dashboard, bearer(user.token))).status).toBe(200); // trial: role 1
    expect((await viaSecond('/api/ApiKeys', dashboard, bearer(user.token))).status).toBe(200);
    await setTrialEnd(sut.system.identity.deps, user.id, new Date(Date.now() - 1000));
    expect((await sut.call('GET', '/api/ApiKeys', dashboard, bearer(user.token))).status).toBe(403);
    expect((await viaSecond('/api/ApiKeys', dashboard, bearer(user.token))).status).toBe(403);
  });

  it('sign-in limits count on the cluster: the 6th wrong password for one account and address is refused', async () => {
    const user = await createUser(sut, app);
    const wrong = () => sut.call('POST', '/api/Users/Login', app, json({ email: user.email, password: `${PASSWORD}x` }));
    for (let i = 0; i < 5; i++) expect((await wrong()).status).toBe(401);
    const refused = await wrong();
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
