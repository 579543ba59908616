import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { apiKeyCreatedResponseSchema, apiKeyListResponseSchema, apiKeyUsageResponseSchema } from '@acs/contracts';
import type { ServiceProcess } from '../../bench/src/processes.js';
import { startSystemUnderTest, type SystemUnderTest } from './system-harness.js';
import { startSecondGateway } from './second-gateway.js';
import { appKey, bearer, json, newUser, type Auth, type User } from './actors.js';

// Issue 31.3 through two gateway processes on real Redis and PostgreSQL: a key's ipAllowList is checked from the
// record each gateway reads, a PATCH applies on the next request of both, X-Forwarded-For counts only from
// TRUSTED_PROXIES, refusals are counted in the key's usage, and clearing the list opens the key again.

let sut: SystemUnderTest;
let second: ServiceProcess; // trusts 127.0.0.1 as a proxy; the system's own gateway trusts none
let dashboard: Auth;
let user: User;

beforeAll(async () => {
  sut = await startSystemUnderTest({ KEY_USAGE_FLUSH_MS: '200' });
  second = await startSecondGateway(sut, { TRUSTED_PROXIES: '127.0.0.1/32', KEY_USAGE_FLUSH_MS: '200' });
  dashboard = await appKey(sut, ['system:full-access']);
  user = await newUser(sut, await appKey(sut, ['auth:register', 'auth:login']));
}, 60_000);
afterAll(async () => {
  await second?.stop();
  await sut?.stop();
});

const patch = (id: string, body: unknown) => sut.call('PATCH', `/api/ApiKeys/${id}`, dashboard, bearer(user.token, json(body)));
const catalogVia = (gateway: string, auth: Auth, forwardedFor?: string) =>
  fetch(`${gateway}/api/Dac`, {
    headers: { 'x-api-key': auth.key, 'x-api-secret': auth.secret, ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}) },
  });
const both = async (auth: Auth, forwardedFor?: string) => [
  (await catalogVia(sut.url, auth, forwardedFor)).status,
  (await catalogVia(second.url, auth, forwardedFor)).status,
];

async function createKey(body: Record<string, unknown>): Promise<Response> {
  return sut.call('POST', '/api/ApiKeys', dashboard, bearer(user.token, json({ name: 'allow-listed', scopes: 'read:devices', ...body })));
}

describe('IP allow-lists per key', () => {
  it('refuses a malformed range with 400 naming the field, and creates nothing', async () => {
    const keysOf = async () =>
      apiKeyListResponseSchema.parse(await (await sut.call('GET', '/api/ApiKeys', dashboard, bearer(user.token))).json()).items.length;
    const before = await keysOf();
    const res = await createKey({ ipAllowList: ['127.0.0.1/32', '10.0.0.0/33'] });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { code: string; details: { path: string; message: string }[] };
    expect(body.code).toBe('validation_failed');
    expect(body.details[0]).toMatchObject({ path: 'body.ipAllowList.1', message: expect.stringMatching(/10\.0\.0\.0\/33/) });
    expect(await keysOf()).toBe(before);
  });

  it('admits an allowed address, refuses others with 403 ip_not_allowed on both gateways after a PATCH, and reopens when cleared', async () => {
    const created = apiKeyCreatedResponseSchema.parse(await (await createKey({ ipAllowList: ['127.0.0.1', '2001:db8::/32'] })).json());
    expect(created.ipAllowList).toEqual(['127.0.0.1', '2001:db8::/32']);
    const auth = { key: created.key, secret: created.secret };
    expect(await both(auth)).toEqual([200, 200]);

    const patched = await patch(created.id, { ipAllowList: ['198.51.100.0/24'] });
    expect(patched.status).toBe(200);
    expect(((await patched.json()) as { ipAllowList: unknown }).ipAllowList).toEqual(['198.51.100.0/24']);
    // The next request of each replica sees the change.
    expect(await both(auth)).toEqual([403, 403]);
    const refused = (await (await catalogVia(second.url, auth)).json()) as Record<string, unknown>;
    expect(refused).toMatchObject({ error: expect.any(String), message: expect.any(String), code: 'ip_not_allowed' });

    // X-Forwarded-For names the client only when a trusted proxy wrote it: the second gateway trusts 127.0.0.1.
    expect(await both(auth, '198.51.100.7')).toEqual([403, 200]);
    // A client cannot pick its address by writing further left than the proxy did.
    expect((await catalogVia(second.url, auth, '198.51.100.7, 203.0.113.9')).status).toBe(403);

    const listed = apiKeyListResponseSchema.parse(await (await sut.call('GET', '/api/ApiKeys', dashboard, bearer(user.token))).json());
    expect(listed.items.find((item) => item.id === created.id)?.ipAllowList).toEqual(['198.51.100.0/24']);

    expect((await patch(created.id, { ipAllowList: null })).status).toBe(200);
    expect(await both(auth)).toEqual([200, 200]);
  });

  it("counts the refusals in the key's usage", async () => {
    const created = apiKeyCreatedResponseSchema.parse(await (await createKey({ ipAllowList: ['203.0.113.0/24'] })).json());
    const auth = { key: created.key, secret: created.secret };
    expect(await both(auth)).toEqual([403, 403]);
    let fourXx = 0;
    for (let tries = 0; tries < 50 && fourXx < 2; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const res = await sut.call('GET', `/api/ApiKeys/${created.id}/usage?days=1`, dashboard, bearer(user.token));
      fourXx = apiKeyUsageResponseSchema.parse(await res.json()).days.at(-1)!.byStatus['4xx'];
    }
    expect(fourXx).toBe(2);
  });
});
