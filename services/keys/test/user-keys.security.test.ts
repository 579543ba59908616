import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { apiKeyCreatedResponseSchema, apiKeyListResponseSchema } from '@acs/contracts';
import { signedFetch } from '@acs/testing';
import { INTERNAL_SECRET, captureLogger, startKeys, type KeysHarness } from './harness.js';

// /api/ApiKeys at the service: the caller comes only from the gateway-signed context.
const capture = captureLogger();
let h: KeysHarness;
beforeAll(async () => {
  h = await startKeys({ logger: capture.logger, env: { KEYS_PER_USER: '2' } });
});
afterAll(async () => h.stop());

const as = (userId: number | undefined, role: number, requestId = 'req-1') => ({
  context: { requestId, keyId: 'dashboard', scopes: ['system:full-access'], ...(userId === undefined ? {} : { userId, role }) },
});
const call = (method: string, path: string, who: ReturnType<typeof as>, body?: unknown) =>
  signedFetch(h.url, INTERNAL_SECRET, method, path, {
    ...who,
    ...(body === undefined ? {} : { body }),
    headers: { 'x-request-id': who.context.requestId },
  });

describe("users' API keys at the keys service", () => {
  it('creates, lists, changes and revokes a key, auditing each step with key id, user id and request id', async () => {
    const created = apiKeyCreatedResponseSchema.parse(
      await (await call('POST', '/api/ApiKeys', as(7, 1, 'req-create'), { name: 'player', scopes: 'read:devices' })).json(),
    );
    await call('PATCH', `/api/ApiKeys/${created.id}`, as(7, 1, 'req-patch'), { scopes: 'read:devices auth:login' });
    await call('DELETE', `/api/ApiKeys/${created.id}`, as(7, 0, 'req-revoke'));
    const audits = capture.lines.filter((line) => typeof line.audit === 'string' && line.keyId === created.id);
    expect(audits.map((line) => [line.audit, line.userId, line.requestId])).toEqual([
      ['api_key.created', 7, 'req-create'],
      ['api_key.changed', 7, 'req-patch'],
      ['api_key.revoked', 7, 'req-revoke'],
    ]);
    expect(capture.text()).not.toContain(created.secret);
    const list = apiKeyListResponseSchema.parse(await (await call('GET', '/api/ApiKeys', as(7, 1))).json());
    expect(list.items[0]).toMatchObject({ id: created.id, scopes: 'read:devices auth:login', revokedAt: expect.any(String) });
  });

  it('refuses a context without a user, or with too low a role, with the spec body', async () => {
    for (const [who, method, path, code] of [
      [as(undefined, 0), 'GET', '/api/ApiKeys', 'token_required'],
      [as(8, 0), 'GET', '/api/ApiKeys', 'subscription_required'],
      [as(8, 0), 'POST', '/api/ApiKeys', 'subscription_required'],
    ] as const) {
      const res = await call(method, path, who, method === 'POST' ? { name: 'x', scopes: 'read:devices' } : undefined);
      expect(res.status).toBe(403);
      expect(await res.json()).toMatchObject({
        error: 'Insufficient permissions',
        message: 'A valid user JWT with sufficient role is required',
        code,
        hint: expect.any(String),
      });
    }
  });

  it("answers 404 for another user's key or an unknown id, 409 past the limit and for a revoked key", async () => {
    const mine = apiKeyCreatedResponseSchema.parse(
      await (await call('POST', '/api/ApiKeys', as(9, 1), { name: 'a', scopes: 'read:devices' })).json(),
    );
    expect((await call('PATCH', `/api/ApiKeys/${mine.id}`, as(10, 1), { scopes: 'write:devices' })).status).toBe(404);
    expect((await call('DELETE', `/api/ApiKeys/${mine.id}`, as(10, 1))).status).toBe(404);
    expect((await call('DELETE', '/api/ApiKeys/not-a-uuid', as(9, 1))).status).toBe(404);
    expect((await call('POST', '/api/ApiKeys', as(9, 1), { name: 'b', scopes: 'read:devices' })).status).toBe(201);
    const pastLimit = await call('POST', '/api/ApiKeys', as(9, 1), { name: 'c', scopes: 'read:devices' });
    expect(pastLimit.status).toBe(409);
    expect(await pastLimit.json()).toMatchObject({ code: 'key_limit_reached', hint: expect.stringContaining('Revoke') });
    expect((await call('DELETE', `/api/ApiKeys/${mine.id}`, as(9, 1))).status).toBe(200);
    const revoked = await call('PATCH', `/api/ApiKeys/${mine.id}`, as(9, 1), { name: 'renamed' });
    expect(revoked.status).toBe(409);
    expect(await revoked.json()).toMatchObject({ code: 'key_revoked' });
    expect((await call('POST', '/api/ApiKeys', as(9, 1), { name: 'c', scopes: 'read:devices' })).status).toBe(201); // a revoked key frees a slot
  });

  it('refuses bad bodies: unknown and reserved scopes, empty names, unknown environments, empty changes', async () => {
    for (const body of [
      { name: 'x', scopes: 'system:full-access' },
      { name: 'x', scopes: 'read:devices nope' },
      { name: ' ', scopes: 'read:devices' },
      { name: 'x', scopes: 'read:devices', environment: 'prod' },
      { scopes: 'read:devices' },
    ]) {
      expect((await call('POST', '/api/ApiKeys', as(11, 1), body)).status).toBe(400);
    }
    const created = apiKeyCreatedResponseSchema.parse(
      await (await call('POST', '/api/ApiKeys', as(11, 1), { name: 'x', scopes: 'read:devices' })).json(),
    );
    expect((await call('PATCH', `/api/ApiKeys/${created.id}`, as(11, 1), {})).status).toBe(400);
    expect((await call('PATCH', `/api/ApiKeys/${created.id}`, as(11, 1), { scopes: 'system:full-access' })).status).toBe(400);
    // A field PATCH does not take is named, never ignored beside one it does (a 200 would read as "expiry set").
    const ignored = await call('PATCH', `/api/ApiKeys/${created.id}`, as(11, 1), { name: 'y', expiresAt: '2030-01-01T00:00:00Z' });
    expect(ignored.status).toBe(400);
    expect(((await ignored.json()) as { details: unknown[] }).details).toEqual([{ path: 'body.expiresAt', message: 'unknown field' }]);
    const unchanged = await (await call('GET', '/api/ApiKeys', as(11, 1))).json();
    expect(JSON.stringify(unchanged)).not.toContain('"name":"y"');
  });
});
