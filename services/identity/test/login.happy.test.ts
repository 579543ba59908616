import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { JWT_AUDIENCE_DEFAULT, JWT_ISSUER_DEFAULT, loginResponseSchema, userClaimsSchema } from '@acs/contracts';
import { setTrialEnd, setUserRole } from '../src/index.js';
import { captureLogger, registered, startIdentity, type IdentityHarness } from './harness.js';

let identity: IdentityHarness;
let lines: ReturnType<typeof captureLogger>['lines'];
let text: () => string;
let jwks: ReturnType<typeof createLocalJWKSet>;

beforeAll(async () => {
  const captured = captureLogger();
  ({ lines, text } = captured);
  identity = await startIdentity({ logger: captured.logger });
  const response = await identity.jwks();
  jwks = createLocalJWKSet((await response.json()) as JSONWebKeySet);
});

afterAll(async () => {
  await identity?.stop();
});

async function loginOk(email: string, password: string) {
  const response = await identity.login({ email, password });
  expect(response.status).toBe(200);
  const body = loginResponseSchema.strict().parse(await response.json());
  expect(Object.keys(body.user).sort()).toEqual(['email', 'id', 'isTrialSubscription', 'role']);
  const { payload, protectedHeader } = await jwtVerify(body.token, jwks, {
    algorithms: ['EdDSA'],
    issuer: JWT_ISSUER_DEFAULT,
    audience: JWT_AUDIENCE_DEFAULT,
  });
  return { body, claims: userClaimsSchema.strict().parse(payload), header: protectedHeader };
}

describe('POST /api/Users/Login during the trial', () => {
  it('answers the spec login response and a token the JWKS verifies, with role 1 and trial_expires_at', async () => {
    const { body: account, user } = await registered(identity);
    const before = Math.floor(Date.now() / 1000);
    const { body, claims, header } = await loginOk(account.email, account.password);
    expect(body.user).toEqual({ id: user.id, email: account.email, role: 1, isTrialSubscription: true });
    expect(header).toEqual({ alg: 'EdDSA', kid: identity.deps.signer.kid, typ: 'JWT' });
    const trialEnd = Date.parse(user.trialExpiresAt!) / 1000;
    expect(claims).toEqual({
      sub: String(user.id),
      email: account.email,
      role: 1,
      plan_type: 0,
      trial_expires_at: trialEnd,
      iss: JWT_ISSUER_DEFAULT,
      aud: JWT_AUDIENCE_DEFAULT,
      iat: expect.any(Number),
      exp: expect.any(Number),
      // The platform's own claim beside the spec's (issue 32): the session this sign-in opened.
      sid: expect.stringMatching(/^[A-Za-z0-9_-]{12}$/),
    });
    expect(claims.iat).toBeGreaterThanOrEqual(before);
    expect(claims.exp - claims.iat).toBe(3600);
    expect(body.expiresAt).toBe(new Date(claims.exp * 1000).toISOString());
    expect(body.expiresAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.000Z$/);
  });

  it('accepts the e-mail in any case and answers it as registered', async () => {
    const { body: account } = await registered(identity);
    const { body, claims } = await loginOk(account.email.toUpperCase(), account.password);
    expect(body.user.email).toBe(account.email);
    expect(claims.email).toBe(account.email);
  });
});

describe('POST /api/Users/Login after the trial', () => {
  it('answers role 0, isTrialSubscription false and a token without trial_expires_at', async () => {
    const { body: account, user } = await registered(identity);
    await setTrialEnd(identity.deps, user.id, new Date(Date.now() - 1000));
    const { body, claims } = await loginOk(account.email, account.password);
    expect(body.user).toEqual({ id: user.id, email: account.email, role: 0, isTrialSubscription: false });
    expect(claims.role).toBe(0);
    expect(claims).not.toHaveProperty('trial_expires_at');
    expect((await identity.cachedAuthz(user.id))!.record.trialEndsAt).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
  });

  it('an Admin keeps role 2 after the trial, and during it (the highest role wins)', async () => {
    const { body: account, user } = await registered(identity);
    await setUserRole(identity.deps, account.email, 2);
    const during = await loginOk(account.email, account.password);
    expect(during.body.user).toMatchObject({ role: 2, isTrialSubscription: true });
    expect(during.claims.trial_expires_at).toBe(Date.parse(user.trialExpiresAt!) / 1000);
    await setTrialEnd(identity.deps, user.id, null);
    const after = await loginOk(account.email, account.password);
    expect(after.body.user).toMatchObject({ role: 2, isTrialSubscription: false });
    expect(after.claims).not.toHaveProperty('trial_expires_at');
  });
});

describe('what a login leaves behind', () => {
  it('logs an audit line with user id and request id, never the password, the hash or the token', async () => {
    const { body: account, user } = await registered(identity);
    const response = await identity.login(
      { email: account.email, password: account.password },
      { headers: { 'x-request-id': 'req-login-ok' } },
    );
    const { token } = (await response.json()) as { token: string };
    expect(lines).toContainEqual(expect.objectContaining({ audit: 'user.logged_in', userId: user.id, requestId: 'req-login-ok', role: 1 }));
    const { rows } = await identity.db.query<{ password_hash: string }>('SELECT password_hash FROM users WHERE id = $1', [user.id]);
    expect(text()).not.toContain(account.password);
    expect(text()).not.toContain(rows[0]!.password_hash);
    expect(text()).not.toContain(token);
    expect(decodeProtectedHeader(token).kid).toBe(identity.deps.signer.kid);
  });
});
