import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { authzCacheKey, authzLookupResponseSchema } from '@acs/contracts';
import { setTrialEnd, setUserRole } from '../src/index.js';
import { captureLogger, registered, startIdentity, type IdentityHarness } from './harness.js';

let identity: IdentityHarness;
const captured = captureLogger();

beforeAll(async () => {
  identity = await startIdentity({ logger: captured.logger });
});

afterAll(async () => {
  await identity?.stop();
});

describe('POST /internal/users/authz (the gateway on a cache miss)', () => {
  it('answers the record from the database and refills the cache after the entry was dropped', async () => {
    const { user } = await registered(identity);
    const original = await identity.cachedAuthz(user.id);
    await identity.redis.del(`${identity.prefix}${authzCacheKey(user.id)}`);
    const response = await identity.lookup({ userId: user.id });
    expect(response.status).toBe(200);
    const body = authzLookupResponseSchema.parse(await response.json());
    expect(body.record).toEqual({
      userId: user.id,
      accountRole: 0,
      trialEndsAt: Date.parse(user.trialExpiresAt!) / 1000,
      subscriptionEndsAt: null,
      planType: 0,
      disabled: false,
      quota: { plan: 'trial', perMonth: 100_000, perDay: 10_000 }, // TRIAL_QUOTA's default
      // A new account's address is not verified yet (issue 32).
      emailUnverified: true,
    });
    expect(await identity.cachedAuthz(user.id)).toEqual(original);
  });

  it('answers null for an unknown user and caches nothing', async () => {
    const response = await identity.lookup({ userId: 987_654_321 });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ record: null });
    expect(await identity.cachedAuthz(987_654_321)).toBeNull();
  });

  it('does not replace a newer entry with an older version', async () => {
    const { body: account, user } = await registered(identity);
    await setUserRole(identity.deps, account.email, 2);
    // A refill carrying the same version is refused; the entry stays as the change wrote it.
    const response = await identity.lookup({ userId: user.id });
    expect(((await response.json()) as { record: { accountRole: number } }).record.accountRole).toBe(2);
    expect(await identity.cachedAuthz(user.id)).toMatchObject({ version: 2, record: { accountRole: 2 } });
  });

  it.each<[string, unknown]>([
    ['a missing userId', {}],
    ['a string userId', { userId: '1' }],
    ['zero', { userId: 0 }],
    ['a negative id', { userId: -4 }],
    ['a fraction', { userId: 1.5 }],
  ])('answers 400 to %s', async (_what, body) => {
    const response = await identity.lookup(body);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: 'Bad request', details: [{ path: 'body.userId', message: expect.any(String) }] });
  });
});

describe('every change writes the record through', () => {
  it('setUserRole changes the account role in the database and the cache, with a new version and an audit line', async () => {
    const { body: account, user } = await registered(identity);
    const changed = await setUserRole(identity.deps, account.email.toUpperCase(), 3);
    expect(changed).toMatchObject({ id: user.id, accountRole: 3, version: 2 });
    expect(await identity.cachedAuthz(user.id)).toMatchObject({ version: 2, record: { userId: user.id, accountRole: 3 } });
    const { rows } = await identity.db.query<{ account_role: number }>('SELECT account_role FROM users WHERE id = $1', [user.id]);
    expect(rows[0]!.account_role).toBe(3);
    expect(captured.lines).toContainEqual(
      expect.objectContaining({ audit: 'user.role_changed', userId: user.id, previousRole: 0, role: 3 }),
    );
  });

  it('setTrialEnd moves the trial end in the database and the cache (Unix seconds)', async () => {
    const { user } = await registered(identity);
    const ended = new Date(Math.floor(Date.now() / 1000) * 1000 - 5000);
    const changed = await setTrialEnd(identity.deps, user.id, ended);
    expect(changed.trialEndsAt).toEqual(ended);
    expect(await identity.cachedAuthz(user.id)).toMatchObject({ version: 2, record: { trialEndsAt: ended.getTime() / 1000 } });
    await setTrialEnd(identity.deps, user.id, null);
    expect(await identity.cachedAuthz(user.id)).toMatchObject({ version: 3, record: { trialEndsAt: null } });
  });

  it('refuses unknown users and invalid roles', async () => {
    await expect(setUserRole(identity.deps, 'nobody-here@example.test', 2)).rejects.toThrow(
      'No user with the e-mail address nobody-here@example.test',
    );
    await expect(setTrialEnd(identity.deps, 987_654_321, null)).rejects.toThrow('No user 987654321');
    const { body: account } = await registered(identity);
    for (const role of [4, -1, 1.5, Number.NaN])
      await expect(setUserRole(identity.deps, account.email, role)).rejects.toThrow(/The role must be 0/);
  });
});
