import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { verifyAuditChain } from '@acs/audit';
import { auditLogResponseSchema } from '@acs/contracts';
import { signedFetch } from '@acs/testing';
import { IDENTITY_AUDIT } from '../src/domain/account-audit.js';
import { issueMailedToken } from '../src/domain/mailed-token.js';
import { INTERNAL_SECRET, registered, startIdentity, strongPassword, type IdentityHarness } from './harness.js';

// Issue 30: sessions are in identity's audit trail, in the transaction of the change: a sign-in opens
// one, a user ends one or the others, a password change or reset ends them; GET /api/AuditLog shows them.
let identity: IdentityHarness;
beforeAll(async () => {
  identity = await startIdentity();
});
afterAll(async () => identity.stop());

const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
const SAFARI_IOS =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';

const sidOf = (token: string): string => (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { sid: string }).sid;

async function signIn(email: string, password: string, userAgent: string, clientIp: string, requestId: string): Promise<string> {
  const response = await identity.login({ email, password }, { clientIp, headers: { 'user-agent': userAgent, 'x-request-id': requestId } });
  expect(response.status).toBe(200);
  return sidOf(((await response.json()) as { token: string }).token);
}

/** A signed-in user's request, as the gateway signs it: its session, its address and a request id. */
const asUser = (userId: number, sessionId: string, method: string, path: string, requestId: string, body?: unknown) =>
  signedFetch(identity.url, INTERNAL_SECRET, method, path, {
    audience: 'identity',
    body,
    headers: { 'x-request-id': requestId },
    context: { keyId: 'dashboard', scopes: ['system:full-access'], userId, role: 1, sessionId, clientIp: '198.51.100.20' },
  });

async function trail(userId: number, sessionId: string, query: string) {
  const response = await asUser(userId, sessionId, 'GET', `/api/AuditLog${query}`, 'req-read');
  expect(response.status).toBe(200);
  return auditLogResponseSchema.parse(await response.json()).items;
}

describe('sessions in the audit trail', () => {
  it('records sign-ins, ending one, ending the others and a password change, with device, address and request id; never a password', async () => {
    const { user, body } = await registered(identity);
    const laptop = await signIn(user.email, body.password, FIREFOX, '203.0.113.10', 'req-login-laptop');
    const phone = await signIn(user.email, body.password, SAFARI_IOS, '203.0.113.11', 'req-login-phone');
    const tablet = await signIn(user.email, body.password, SAFARI_IOS, '203.0.113.12', 'req-login-tablet');
    const spare = await signIn(user.email, body.password, FIREFOX, '203.0.113.13', 'req-login-spare');
    expect((await asUser(user.id, laptop, 'DELETE', `/api/Sessions/${phone}`, 'req-end-phone')).status).toBe(200);
    expect((await asUser(user.id, laptop, 'POST', '/api/Sessions/EndOthers', 'req-end-others')).status).toBe(200);
    const spareAgain = await signIn(user.email, body.password, FIREFOX, '203.0.113.14', 'req-login-again');
    const newPassword = strongPassword();
    const changed = await asUser(user.id, laptop, 'POST', '/api/Users/Password', 'req-password', {
      currentPassword: body.password,
      newPassword,
    });
    expect(changed.status).toBe(200);
    expect((await asUser(user.id, laptop, 'DELETE', `/api/Sessions/${laptop}`, 'req-sign-out')).status).toBe(200);

    const items = (await trail(user.id, laptop, '?targetType=session&pageSize=50')).reverse();
    const rows = items.map((item) => [item.action, item.targetId, item.after?.['reason'] ?? null, item.actor.requestId]);
    // Ending the others is one change with one entry each: their order inside it is the database's.
    const endedOthers = rows.slice(5, 7).sort((a, b) => (String(a[1]) < String(b[1]) ? -1 : 1));
    expect([...rows.slice(0, 5), ...endedOthers, ...rows.slice(7)]).toEqual([
      ['session.created', laptop, null, 'req-login-laptop'],
      ['session.created', phone, null, 'req-login-phone'],
      ['session.created', tablet, null, 'req-login-tablet'],
      ['session.created', spare, null, 'req-login-spare'],
      ['session.ended', phone, 'ended', 'req-end-phone'],
      ...[tablet, spare].sort().map((id) => ['session.ended', id, 'ended_others', 'req-end-others']),
      ['session.created', spareAgain, null, 'req-login-again'],
      ['session.ended', spareAgain, 'password_changed', 'req-password'],
      ['session.ended', laptop, 'signed_out', 'req-sign-out'],
    ]);
    // The sign-in's actor is the user, from the sign-in's address; the session's device label is in the entry.
    expect(items[0]!.actor).toEqual({ type: 'user', id: String(user.id), requestId: 'req-login-laptop', clientAddress: '203.0.113.10' });
    expect(items[0]!.after).toMatchObject({ device: 'Firefox on Linux' });
    expect(items[1]!.after).toMatchObject({ device: 'Safari on iOS' });
    expect(items.at(-1)!.actor).toEqual({ type: 'user', id: String(user.id), requestId: 'req-sign-out', clientAddress: '198.51.100.20' });
    expect(items.at(-1)!.after).toMatchObject({ device: 'Firefox on Linux', endedAt: expect.any(String) });

    // The existing filters: one session's story, one action.
    expect((await trail(user.id, laptop, `?targetType=session&targetId=${phone}`)).map((item) => item.action)).toEqual([
      'session.ended',
      'session.created',
    ]);
    expect((await trail(user.id, laptop, '?action=session.created')).map((item) => item.targetId).sort()).toEqual(
      [laptop, phone, tablet, spare, spareAgain].sort(),
    );
    const text = JSON.stringify(await trail(user.id, laptop, '?pageSize=200'));
    expect(text).not.toContain(body.password);
    expect(text).not.toContain(newPassword);
    expect(await verifyAuditChain(identity.db, IDENTITY_AUDIT)).toMatchObject({ problems: [] });
  });

  it('records the sessions a password reset ends, with the reset request as actor', async () => {
    const { user, body } = await registered(identity);
    const first = await signIn(user.email, body.password, FIREFOX, '203.0.113.20', 'req-a');
    const second = await signIn(user.email, body.password, SAFARI_IOS, '203.0.113.21', 'req-b');
    const token = await issueMailedToken(identity.db, 'password_resets', user.id, 900);
    const reset = await signedFetch(identity.url, INTERNAL_SECRET, 'POST', '/api/Users/PasswordReset/Complete', {
      body: { token, newPassword: strongPassword() },
      headers: { 'x-request-id': 'req-reset' },
      context: { keyId: 'dashboard', scopes: ['auth:login'], clientIp: '198.51.100.99' },
    });
    expect(reset.status).toBe(200);
    const ended = (await trail(user.id, first, '?action=session.ended')).sort((a, b) => (a.targetId < b.targetId ? -1 : 1));
    expect(ended.map((item) => item.targetId)).toEqual([first, second].sort());
    for (const item of ended) {
      expect(item.after).toMatchObject({ reason: 'password_reset' });
      // No one was signed in: the account the reset link is for is the actor, from the reset's address.
      expect(item.actor).toEqual({ type: 'user', id: String(user.id), requestId: 'req-reset', clientAddress: '198.51.100.99' });
    }
    expect(JSON.stringify(ended)).not.toContain(token);
  });
});
