import { describe, it, expect, afterEach } from '@jest/globals';
import { setUserRole } from '../src/index.js';
import { captureLogger, findRow, registered, startIdentity, strongPassword, uniqueEmail, type IdentityHarness } from './harness.js';

let identity: IdentityHarness | undefined;

afterEach(async () => {
  await identity?.stop();
  identity = undefined;
});

async function loginStatus(harness: IdentityHarness, email: string, password: string): Promise<{ status: number; role?: number }> {
  const response = await harness.login({ email, password }, { clientIp: '192.0.2.10' });
  const body = (await response.json()) as { user?: { role: number } };
  return { status: response.status, ...(body.user ? { role: body.user.role } : {}) };
}

describe('SEED_ADMIN_EMAIL and SEED_ADMIN_PASSWORD at start', () => {
  it('create an Admin (role 2, no trial) that can log in, written through to the cache', async () => {
    const email = uniqueEmail('Admin');
    const password = strongPassword();
    const { logger, lines, text } = captureLogger();
    identity = await startIdentity({ logger, env: { SEED_ADMIN_EMAIL: email, SEED_ADMIN_PASSWORD: password } });
    const row = await findRow(identity.db, email);
    expect(row).toMatchObject({ email, account_role: 2, trial_ends_at: null, first_name: 'Admin', last_name: 'Admin', version: 1 });
    expect(await identity.cachedAuthz(row!.id)).toMatchObject({
      version: 1,
      record: { userId: row!.id, accountRole: 2, trialEndsAt: null },
    });
    expect(await loginStatus(identity, email, password)).toEqual({ status: 200, role: 2 });
    expect(lines).toContainEqual(expect.objectContaining({ audit: 'user.seeded', userId: row!.id, role: 2 }));
    expect(text()).not.toContain(password);
  });

  it('on a restart with another password reset it, and keep one account', async () => {
    const email = uniqueEmail('admin');
    const first = strongPassword();
    identity = await startIdentity({ env: { SEED_ADMIN_EMAIL: email, SEED_ADMIN_PASSWORD: first } });
    const original = (await findRow(identity.db, email))!;
    const second = strongPassword();
    await identity.restart({ SEED_ADMIN_EMAIL: email.toUpperCase(), SEED_ADMIN_PASSWORD: second });
    const row = (await findRow(identity.db, email))!;
    expect(row).toMatchObject({ id: original.id, email, account_role: 2, version: 2 });
    expect(row.password_hash).not.toBe(original.password_hash);
    expect((await loginStatus(identity, email, first)).status).toBe(401);
    expect(await loginStatus(identity, email, second)).toEqual({ status: 200, role: 2 });
    const { rows } = await identity.db.query<{ n: number }>('SELECT count(*)::int AS n FROM users WHERE lower(email) = lower($1)', [email]);
    expect(rows[0]!.n).toBe(1);
    expect(await identity.cachedAuthz(row.id)).toMatchObject({ version: 2, record: { accountRole: 2 } });
  });

  it('promote an existing registered account to Admin, keeping its trial', async () => {
    identity = await startIdentity();
    const { body, user } = await registered(identity);
    const password = strongPassword();
    await identity.restart({ SEED_ADMIN_EMAIL: body.email, SEED_ADMIN_PASSWORD: password });
    expect(await findRow(identity.db, body.email)).toMatchObject({ id: user.id, account_role: 2 });
    expect(await loginStatus(identity, body.email, password)).toEqual({ status: 200, role: 2 });
  });

  it('leave a SuperAdmin a SuperAdmin (at least Admin, never a demotion)', async () => {
    const email = uniqueEmail('super');
    const password = strongPassword();
    identity = await startIdentity({ env: { SEED_ADMIN_EMAIL: email, SEED_ADMIN_PASSWORD: password } });
    await setUserRole(identity.deps, email, 3);
    await identity.restart();
    expect(await findRow(identity.db, email)).toMatchObject({ account_role: 3 });
    expect(await loginStatus(identity, email, password)).toEqual({ status: 200, role: 3 });
  });
});
