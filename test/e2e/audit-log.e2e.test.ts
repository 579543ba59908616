import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { auditLogResponseSchema, type AuditLogResponseBody } from '@acs/contracts';
import { startSystemUnderTest, type SystemUnderTest } from './system-harness.js';
import { appKey, bearer, json, newUser, type Auth } from './actors.js';

// Issue 30 through the gateway: a user's account, key and subscription changes all land in their
// own trail (identity's feed; keys' and billing's entries through the bus), and nobody else's.
let sut: SystemUnderTest;
let app: Auth;
let dashboard: Auth;

beforeAll(async () => {
  sut = await startSystemUnderTest(); // with the default trial: keys can be created at once
  app = await appKey(sut, ['auth:register', 'auth:login']);
  dashboard = await appKey(sut, ['system:full-access']);
}, 60_000);
afterAll(async () => sut?.stop());

async function trail(token: string, query = ''): Promise<AuditLogResponseBody> {
  const response = await sut.call('GET', `/api/AuditLog${query}`, dashboard, bearer(token));
  expect(response.status).toBe(200);
  return auditLogResponseSchema.parse(await response.json());
}

describe('GET /api/AuditLog through the gateway', () => {
  it("shows the user's registration, subscription and key changes from three services, and only theirs", async () => {
    const user = await newUser(sut, app);
    const other = await newUser(sut, app);
    expect((await sut.call('POST', '/api/Subscriptions', dashboard, bearer(user.token, json({ planId: 'monthly' })))).status).toBe(201);
    const created = await sut.call(
      'POST',
      '/api/ApiKeys',
      dashboard,
      bearer(user.token, json({ name: 'audited', scopes: 'read:devices' })),
    );
    expect(created.status).toBe(201);
    const { id: keyId, secret } = (await created.json()) as { id: string; secret: string };
    expect((await sut.call('DELETE', `/api/ApiKeys/${keyId}`, dashboard, bearer(user.token))).status).toBe(200);

    const deadline = Date.now() + 10_000;
    let actions: string[] = [];
    while (Date.now() < deadline) {
      actions = (await trail(user.token)).items.map((item) => `${item.service}:${item.action}`);
      if (actions.includes('keys:api_key.revoked') && actions.includes('billing:subscription.activated')) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(actions).toEqual(
      expect.arrayContaining([
        'identity:account.created',
        'billing:subscription.activated',
        'keys:api_key.created',
        'keys:api_key.revoked',
        'identity:session.created',
      ]),
    );
    const revoked = await trail(user.token, `?action=api_key.revoked&targetId=${keyId}`);
    expect(revoked.items).toHaveLength(1);
    expect(revoked.items[0]!.actor).toMatchObject({ type: 'user', id: String(user.id), requestId: expect.any(String) });
    expect(JSON.stringify(await trail(user.token))).not.toContain(secret);
    const theirs = await trail(other.token);
    // Their registration and the sign-in that gave them a token (a session), nothing of the first user's.
    expect(theirs.items.map((item) => item.action)).toEqual(['session.created', 'account.created']);
  });
});
