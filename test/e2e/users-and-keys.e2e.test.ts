import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SPEC_ERRORS } from '@acs/errors';
import { apiKeyCreatedResponseSchema, apiKeyListResponseSchema } from '@acs/contracts';
import { createApiKey } from '@acs/keys-service';
import { setTrialEnd } from '@acs/identity-service';
import { startSystemUnderTest, type SystemUnderTest } from './system-harness.js';
import { startSecondGateway } from './second-gateway.js';
import { PASSWORD, appKey, bearer, json, newUser as createUser, type Auth } from './actors.js';

// Issues 3 and 4 through the gateway: the spec's trial state table, layer 2, and users' API keys.
// Long enough that no test of this file sees its user's trial end by itself on a loaded machine (at 4 s,
// a CI run's key test did); the trial rule's test gives its own user a trial of a few seconds.
const TRIAL_SECONDS = 3600;
const USER_403 = { error: SPEC_ERRORS.insufficientUser.error, message: SPEC_ERRORS.insufficientUser.message };
const SCOPE_403 = { error: SPEC_ERRORS.insufficientScope.error, message: SPEC_ERRORS.insufficientScope.message };

let sut: SystemUnderTest;
let app: Auth; // a client app: register and log in users
let dashboard: Auth; // the service's own web application

beforeAll(async () => {
  sut = await startSystemUnderTest({ TRIAL_DURATION_SECONDS: String(TRIAL_SECONDS), KEY_USAGE_FLUSH_MS: '200', KEYS_PER_USER: '3' });
  app = await appKey(sut, ['auth:register', 'auth:login', 'read:devices']);
  dashboard = await appKey(sut, ['system:full-access']);
}, 60_000);
afterAll(async () => sut?.stop());

const claimsOf = (token: string): Record<string, unknown> =>
  JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
const newUser = () => createUser(sut, app);

async function expectBody(res: Response, status: number, body: { error: string; message: string }): Promise<void> {
  expect(res.status).toBe(status);
  expect(await res.json()).toMatchObject(body);
}

describe('the trial rule (docs/api-contract.md, "Users, roles and tokens")', () => {
  it('trial active: role 1, isTrialSubscription, trial_expires_at; expired: Free on the next request with the same token; login again: role 0', async () => {
    const user = await newUser();
    // A trial that ends by itself, with no change to the user's record: the gateway must tell from the time alone.
    await setTrialEnd(sut.system.identity.deps, user.id, new Date(Date.now() + 5000));
    const { token, body } = await user.login();
    expect(body.user).toMatchObject({ id: user.id, role: 1, isTrialSubscription: true });
    const claims = claimsOf(token);
    expect(claims).toMatchObject({ sub: String(user.id), role: 1, plan_type: 0 });
    expect(claims.trial_expires_at).toEqual(expect.any(Number));
    expect((await sut.call('GET', '/api/ApiKeys', dashboard, bearer(token))).status).toBe(200);

    await new Promise((r) => setTimeout(r, (Number(claims.trial_expires_at) - Date.now() / 1000 + 1.2) * 1000));
    await expectBody(await sut.call('GET', '/api/ApiKeys', dashboard, bearer(token)), 403, USER_403); // no re-login
    const after = await user.login();
    expect(after.body.user).toMatchObject({ role: 0, isTrialSubscription: false });
    expect(claimsOf(after.token).role).toBe(0);
    expect(claimsOf(after.token)).not.toHaveProperty('trial_expires_at');
  }, 20_000);
});

describe('layer 2 through the gateway', () => {
  it('refuses missing, malformed, tampered, alg:none and expired-looking tokens with the spec body', async () => {
    const user = await newUser();
    const [h, p, s] = user.token.split('.');
    const forged = Buffer.from(JSON.stringify({ ...claimsOf(user.token), sub: '1', role: 3 })).toString('base64url');
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${p}.`;
    const tokens = [`${h}.${forged}.${s}`, none, 'garbage', `${h}.${p}.${s!.slice(0, -4)}AAAA`];
    await expectBody(await sut.call('GET', '/api/Devices', app), 403, USER_403);
    for (const token of tokens) await expectBody(await sut.call('GET', '/api/ApiKeys', dashboard, bearer(token)), 403, USER_403);
  });

  it('serves the identity keys publicly at /.well-known/jwks.json', async () => {
    const res = await sut.call('GET', '/.well-known/jwks.json', null);
    expect(res.status).toBe(200);
    const { keys } = (await res.json()) as { keys: { kid: string; crv: string; d?: string }[] };
    expect(keys[0]).toMatchObject({ kid: expect.any(String), crv: 'Ed25519' });
    expect(keys.every((k) => k.d === undefined)).toBe(true); // never a private part
  });

  it('an Admin route refuses a Subscriber with the spec body', async () => {
    const user = await newUser();
    const writer = await createApiKey(sut.system.keys.deps, {
      name: 'w',
      scopes: ['write:devices'],
      ownerUserId: null,
      environment: 'test',
    });
    const res = await sut.call('POST', '/api/Dac/import', { key: writer.apiKey.key, secret: writer.secret }, bearer(user.token, json([])));
    await expectBody(res, 403, USER_403);
  });
});

describe("users' API keys", () => {
  async function createKey(token: string, body: unknown): Promise<Response> {
    return sut.call('POST', '/api/ApiKeys', dashboard, bearer(token, json(body)));
  }

  it('a trial user creates a key, uses it within its scopes and is refused outside them', async () => {
    const user = await newUser();
    const res = await createKey(user.token, { name: 'my player', scopes: 'read:devices read:devices' });
    expect(res.status).toBe(201);
    const created = apiKeyCreatedResponseSchema.parse(await res.json());
    expect(created.key).toMatch(/^acs_live_[A-Za-z0-9]{16,64}$/);
    expect(created.scopes).toBe('read:devices');
    const own = { key: created.key, secret: created.secret };
    expect((await sut.call('GET', '/api/Dac', own)).status).toBe(200);
    await expectBody(await sut.call('POST', '/api/Users/Login', own, json({ email: user.email, password: PASSWORD })), 403, SCOPE_403);

    const test = apiKeyCreatedResponseSchema.parse(
      await (await createKey(user.token, { name: 'ci', scopes: 'write:devices', environment: 'test' })).json(),
    );
    expect(test.key).toMatch(/^acs_test_[A-Za-z0-9]{16,64}$/);
    expect((await sut.call('GET', '/api/Dac', { key: test.key, secret: test.secret })).status).toBe(200); // write:devices reads

    const list = apiKeyListResponseSchema.parse(await (await sut.call('GET', '/api/ApiKeys', dashboard, bearer(user.token))).json());
    expect(list.items.map((k) => k.id)).toEqual([test.id, created.id]); // newest first
    expect(JSON.stringify(list)).not.toContain(created.secret);
    expect(JSON.stringify(list)).not.toMatch(/secret/i);
  });

  it('refuses system:full-access and unknown scopes, creating nothing', async () => {
    const user = await newUser();
    for (const scopes of ['system:full-access', 'read:devices system:full-access', 'read:devices admin:all', '']) {
      const res = await createKey(user.token, { name: 'x', scopes });
      expect(res.status).toBe(400);
    }
    const list = apiKeyListResponseSchema.parse(await (await sut.call('GET', '/api/ApiKeys', dashboard, bearer(user.token))).json());
    expect(list.items).toEqual([]);
  });

  it('a Free user gets the spec 403 on list and create', async () => {
    const user = await newUser();
    await setTrialEnd(sut.system.identity.deps, user.id, new Date(Date.now() - 1000));
    await expectBody(await sut.call('GET', '/api/ApiKeys', dashboard, bearer(user.token)), 403, USER_403);
    await expectBody(await createKey(user.token, { name: 'x', scopes: 'read:devices' }), 403, USER_403);
  });

  it('enforces the per-user key limit with 409', async () => {
    const user = await newUser();
    for (let i = 0; i < 3; i++) expect((await createKey(user.token, { name: `k${i}`, scopes: 'read:devices' })).status).toBe(201);
    const res = await createKey(user.token, { name: 'one too many', scopes: 'read:devices' });
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ error: 'Conflict' });
  });

  it("another user can neither list, change nor revoke someone else's key", async () => {
    const owner = await newUser();
    const other = await newUser();
    const created = apiKeyCreatedResponseSchema.parse(
      await (await createKey(owner.token, { name: 'mine', scopes: 'read:devices' })).json(),
    );
    const theirs = apiKeyListResponseSchema.parse(await (await sut.call('GET', '/api/ApiKeys', dashboard, bearer(other.token))).json());
    expect(theirs.items.find((k) => k.id === created.id)).toBeUndefined();
    expect(
      (await sut.call('PATCH', `/api/ApiKeys/${created.id}`, dashboard, bearer(other.token, json({ scopes: 'write:devices' })))).status,
    ).toBe(404);
    expect((await sut.call('DELETE', `/api/ApiKeys/${created.id}`, dashboard, bearer(other.token))).status).toBe(404);
    expect((await sut.call('GET', '/api/Dac', { key: created.key, secret: created.secret })).status).toBe(200); // untouched
  });

  it('every change applies on the very next request, on every gateway process, and lastUsedAt follows', async () => {
    const second = await startSecondGateway(sut);
    try {
      const user = await newUser();
      const created = apiKeyCreatedResponseSchema.parse(
        await (await createKey(user.token, { name: 'fresh', scopes: 'auth:login' })).json(),
      );
      const auth = { key: created.key, secret: created.secret };
      const viaSecond = () => fetch(`${second.url}/api/Dac`, { headers: { 'x-api-key': auth.key, 'x-api-secret': auth.secret } });
      expect((await sut.call('GET', '/api/Dac', auth)).status).toBe(403);
      expect((await viaSecond()).status).toBe(403);

      const patched = await sut.call(
        'PATCH',
        `/api/ApiKeys/${created.id}`,
        dashboard,
        bearer(user.token, json({ scopes: 'auth:login read:devices' })),
      );
      expect(patched.status).toBe(200);
      expect((await sut.call('GET', '/api/Dac', auth)).status).toBe(200);
      expect((await viaSecond()).status).toBe(200);

      await sut.call('PATCH', `/api/ApiKeys/${created.id}`, dashboard, bearer(user.token, json({ scopes: 'auth:login' })));
      expect((await sut.call('GET', '/api/Dac', auth)).status).toBe(403);
      expect((await viaSecond()).status).toBe(403);

      expect((await sut.call('DELETE', `/api/ApiKeys/${created.id}`, dashboard, bearer(user.token))).status).toBe(200);
      expect((await sut.call('GET', '/api/Dac', auth)).status).toBe(401);
      expect((await viaSecond()).status).toBe(401);

      await new Promise((r) => setTimeout(r, 800)); // > KEY_USAGE_FLUSH_MS
      const list = apiKeyListResponseSchema.parse(await (await sut.call('GET', '/api/ApiKeys', dashboard, bearer(user.token))).json());
      const item = list.items.find((k) => k.id === created.id)!;
      expect(item.revokedAt).not.toBeNull();
      expect(item.lastUsedAt).not.toBeNull();
    } finally {
      await second.stop();
    }
  }, 60_000);
});
