import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { AUTHZ_LOOKUP_PATH, JWKS_PATH } from '@acs/contracts';
import { signContext } from '@acs/auth';
import { signedFetch } from '@acs/testing';
import {
  INTERNAL_SECRET,
  LOGIN_PATH,
  REGISTER_PATH,
  buildRegisterBody,
  countUsers,
  findRow,
  startIdentity,
  type IdentityHarness,
} from './harness.js';

let identity: IdentityHarness;

beforeAll(async () => {
  identity = await startIdentity();
});

afterAll(async () => {
  await identity?.stop();
});

describe('mass assignment on POST /api/Users/Register', () => {
  it('ignores role, accountRole, id, trial and plan fields in the body', async () => {
    const { rows } = await identity.db.query<{ next: number }>('SELECT coalesce(max(id), 0)::int + 1000 AS next FROM users');
    const chosenId = rows[0]!.next;
    const body = buildRegisterBody({
      role: 3,
      accountRole: 3,
      account_role: 3,
      id: chosenId,
      isTrialSubscription: false,
      trialExpiresAt: '2099-01-01T00:00:00Z',
      trial_ends_at: '2099-01-01T00:00:00Z',
      subscriptionEndsAt: '2099-01-01T00:00:00Z',
      planType: 3,
      plan_type: 3,
      version: 999,
      passwordHash: '$2b$04$abcdefghijklmnopqrstuuAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    });
    const response = await identity.register(body);
    expect(response.status).toBe(201);
    const json = (await response.json()) as { id: number; role: number; trialExpiresAt: string };
    expect(json.id).not.toBe(chosenId);
    expect(json.role).toBe(1); // the trial's Subscriber, not 3
    expect(Date.parse(json.trialExpiresAt)).toBeLessThan(Date.parse('2030-01-01'));
    const row = await findRow(identity.db, body.email);
    expect(row).toMatchObject({ id: json.id, account_role: 0, plan_type: 0, subscription_ends_at: null, version: 1 });
    expect(row!.password_hash).not.toBe(body.passwordHash);
    expect((await identity.cachedAuthz(json.id))!.record).toMatchObject({ accountRole: 0, planType: 0, subscriptionEndsAt: null });
    // The account logs in with the password it sent, as a trial Subscriber.
    const login = await identity.login({ email: body.email, password: body.password });
    expect(((await login.json()) as { user: { role: number } }).user.role).toBe(1);
  });

  it('a JSON body with __proto__ changes nothing either', async () => {
    const body = buildRegisterBody();
    const text = JSON.stringify(body).replace(/^\{/, '{"__proto__":{"accountRole":3,"role":3},"constructor":{"prototype":{"role":3}},');
    const response = await signedFetch(identity.url, INTERNAL_SECRET, 'POST', REGISTER_PATH, { body: text });
    expect(response.status).toBe(201);
    expect((await findRow(identity.db, body.email))!.account_role).toBe(0);
    expect(({} as Record<string, unknown>).role).toBeUndefined();
  });
});

describe('requests that do not come from the gateway', () => {
  const unauthorized = { error: 'Unauthorized', message: 'This service only accepts requests signed by the gateway' };

  it.each<[string, string, unknown]>([
    ['POST', REGISTER_PATH, buildRegisterBody()],
    ['POST', LOGIN_PATH, { email: 'a@example.test', password: 'whatever-it-is' }],
    ['POST', AUTHZ_LOOKUP_PATH, { userId: 1 }],
    ['GET', JWKS_PATH, undefined],
  ])('%s %s without a signature answers 401 and does nothing', async (method, path, body) => {
    const before = await countUsers(identity.db);
    const response = await fetch(`${identity.url}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject(unauthorized);
    expect(await countUsers(identity.db)).toBe(before);
  });

  it('refuses a signature made with another secret, or for another path', async () => {
    const other = await signedFetch(identity.url, `${INTERNAL_SECRET}x`, 'POST', REGISTER_PATH, { body: buildRegisterBody() });
    expect(other.status).toBe(401);
    const forLogin = signContext(INTERNAL_SECRET, 'identity', 'POST', LOGIN_PATH, { requestId: 'r', keyId: 'k', scopes: [] });
    const replayed = await fetch(`${identity.url}${REGISTER_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-acs-context': forLogin.context, 'x-acs-signature': forLogin.signature },
      body: JSON.stringify(buildRegisterBody()),
    });
    expect(replayed.status).toBe(401);
  });

  it('answers the probes without a signature', async () => {
    expect((await fetch(`${identity.url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${identity.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ ready: true, checks: { database: 'ok', migrations: 'ok', cache: 'ok' } });
  });
});

describe('registration is limited per client address and checks a taken e-mail before hashing', () => {
  let limited: IdentityHarness;

  beforeAll(async () => {
    limited = await startIdentity({ env: { REGISTRATION_MAX_PER_ADDRESS: '3', REGISTRATION_WINDOW_SECONDS: '3600' } });
  });

  afterAll(async () => {
    await limited?.stop();
  });

  /** Counts bcrypt hashes while `fn` runs. */
  async function countHashes(fn: () => Promise<void>): Promise<number> {
    const passwords = limited.deps.passwords;
    let count = 0;
    limited.deps.passwords = {
      ...passwords,
      hash: (password) => {
        count += 1;
        return passwords.hash(password);
      },
    };
    try {
      await fn();
    } finally {
      limited.deps.passwords = passwords;
    }
    return count;
  }

  it('answers 429 with Retry-After to the 4th registration from one address, hashing nothing; another address still registers', async () => {
    for (let i = 0; i < 3; i++) expect((await limited.register(buildRegisterBody(), { clientIp: '198.51.100.7' })).status).toBe(201);
    const before = await countUsers(limited.db);
    let response: Response | undefined;
    const hashes = await countHashes(async () => {
      response = await limited.register(buildRegisterBody(), { clientIp: '198.51.100.7' });
    });
    expect(response!.status).toBe(429);
    const retryAfter = Number(response!.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(3500);
    expect(await response!.json()).toMatchObject({
      error: 'Too many requests',
      message: `Too many registrations from this network. Try again in ${retryAfter} seconds.`,
    });
    expect(hashes).toBe(0);
    expect(await countUsers(limited.db)).toBe(before);
    expect((await limited.register(buildRegisterBody(), { clientIp: '198.51.100.8' })).status).toBe(201);
  });

  it('answers a taken e-mail 409 without running bcrypt (a flood of them costs no hashing)', async () => {
    const body = buildRegisterBody();
    expect((await limited.register(body, { clientIp: '198.51.100.20' })).status).toBe(201);
    let response: Response | undefined;
    const hashes = await countHashes(async () => {
      response = await limited.register({ ...body, email: body.email.toUpperCase() }, { clientIp: '198.51.100.21' });
    });
    expect(response!.status).toBe(409);
    expect(((await response!.json()) as { message: string }).message).toMatch(/Sign in with it/);
    expect(hashes).toBe(0);
  });
});
