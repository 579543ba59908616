import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { apiKeyCreatedResponseSchema, apiKeyOperationUsageResponseSchema, usageResponseSchema } from '@acs/contracts';
import { startSystemUnderTest, type SystemUnderTest } from './system-harness.js';
import { appKey, bearer, json, newUser, type Auth } from './actors.js';

// Issue 29 through the whole system: the gateway counts each request under its operation, the keys
// service rolls the batches up, and the owner reads them per operation, per key this period, and as CSV.
let sut: SystemUnderTest;
let app: Auth;
let dashboard: Auth;

beforeAll(async () => {
  sut = await startSystemUnderTest({ KEY_USAGE_FLUSH_MS: '200' });
  app = await appKey(sut, ['auth:register', 'auth:login', 'read:devices']);
  dashboard = await appKey(sut, ['system:full-access']);
}, 60_000);
afterAll(async () => sut?.stop());

describe('usage by operation', () => {
  it('matches the requests sent, per operation and status class, and per key this period', async () => {
    const user = await newUser(sut, app);
    const created = apiKeyCreatedResponseSchema.parse(
      await (
        await sut.call('POST', '/api/ApiKeys', dashboard, bearer(user.token, json({ name: 'counted', scopes: 'read:devices' })))
      ).json(),
    );
    const auth = { key: created.key, secret: created.secret };
    for (let i = 0; i < 5; i++) expect((await sut.call('GET', '/api/Dac?pageSize=1', auth)).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await sut.call('GET', '/api/SubscriptionPlans', auth)).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await sut.call('GET', '/api/Devices', auth, bearer(user.token))).status).toBe(403);
    // A wrong secret is no one's usage.
    expect((await sut.call('GET', '/api/Dac', { key: created.key, secret: 'x'.repeat(43) })).status).toBe(401);
    await new Promise((resolve) => setTimeout(resolve, 800)); // > KEY_USAGE_FLUSH_MS

    const res = await sut.call('GET', `/api/ApiKeys/${created.id}/usage?by=operation`, dashboard, bearer(user.token));
    expect(res.status).toBe(200);
    const usage = apiKeyOperationUsageResponseSchema.parse(await res.json());
    const zero = { '2xx': 0, '3xx': 0, '4xx': 0, '429': 0, '5xx': 0 };
    expect(usage.operations).toEqual([
      { operationId: 'listCatalog', requests: 5, byStatus: { ...zero, '2xx': 5 } },
      { operationId: 'listPlans', requests: 3, byStatus: { ...zero, '2xx': 3 } },
      { operationId: 'listDevices', requests: 2, byStatus: { ...zero, '4xx': 2 } },
    ]);

    const mine = usageResponseSchema.parse(await (await sut.call('GET', '/api/Usage', dashboard, bearer(user.token))).json());
    expect(mine.plan).toBe('trial');
    expect(mine.keys).toEqual([{ id: created.id, name: 'counted', requests: 10 }]);
    expect(mine.periods[0]).toMatchObject({ period: 'month', quota: 100_000 });

    const csv = await sut.call('GET', `/api/ApiKeys/${created.id}/usage?by=operation&format=csv`, dashboard, bearer(user.token));
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const lines = (await csv.text()).trim().split('\r\n');
    expect(lines[0]).toBe('hour,operationId,requests,2xx,3xx,4xx,429,5xx');
    expect(
      lines
        .slice(1)
        .map((line) => line.split(',').slice(1, 3).join(','))
        .sort(),
    ).toEqual(['listCatalog,5', 'listDevices,2', 'listPlans,3']);
  });
});
