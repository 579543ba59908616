import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import * as OTPAuth from 'otpauth';
import { DEFAULT_RETRY_DELAYS_MS, subscriptionQueueNames } from '@acs/bus';
import { defineAuditTable, listAudit, verifyAuditChain } from '@acs/audit';
import {
  apiKeyCreatedResponseSchema,
  deviceListResponseSchema,
  subscriptionPlanListResponseSchema,
  twoFactorEnrollmentSchema,
} from '@acs/contracts';
import { deleteAmqpObjects, uniqueName, waitFor } from '@acs/testing';
import type { ServiceProcess } from '../../bench/src/processes.js';
import { PASSWORD, appKey, bearer, json, newUser, type Auth, type User } from './actors.js';
import { startSecondGateway } from './second-gateway.js';
import { startSystemUnderTest, type SystemUnderTest } from './system-harness.js';

// Issue 32, item 5, through the whole system on real PostgreSQL, Redis and RabbitMQ with two gateway
// processes: DELETE /api/Users/Me after re-authentication; the user's JWTs and API keys are refused on
// their next request at either replica, billing ends the subscription and device erases the devices
// from user.deleted.v1 on the bus, and the audit trails keep their entries without personal data
// while their hash chains still verify.

let sut: SystemUnderTest;
let second: ServiceProcess;
let app: Auth;
let dashboard: Auth;
let firmware: Auth;
let monthlyPlanId: string;

beforeAll(async () => {
  sut = await startSystemUnderTest({
    AMQP_URL: process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672',
    BUS_EXCHANGE: uniqueName('deletion_e2e'),
    LOGIN_MAX_FAILURES_PER_ADDRESS: '1000',
  });
  second = await startSecondGateway(sut);
  app = await appKey(sut, ['auth:register', 'auth:login']);
  dashboard = await appKey(sut, ['system:full-access', 'auth:login']);
  firmware = await appKey(sut, ['auth:login', 'register:device']);
  const plans = subscriptionPlanListResponseSchema.parse(await (await sut.call('GET', '/api/SubscriptionPlans', dashboard)).json());
  monthlyPlanId = plans.items.find((plan) => plan.planType === 1)!.id;
}, 120_000);
afterAll(async () => {
  await second?.stop();
  await sut?.stop();
  await deleteAmqpObjects({
    queues: ['keys.user-events', 'billing.user-events', 'device.user-events'].flatMap((queue) =>
      subscriptionQueueNames(queue, DEFAULT_RETRY_DELAYS_MS),
    ),
  });
});

const viaSecond = (path: string, auth: Auth, token?: string) =>
  fetch(`${second.url}${path}`, {
    headers: { 'x-api-key': auth.key, 'x-api-secret': auth.secret, ...(token ? { authorization: `Bearer ${token}` } : {}) },
  });
const deleteAccount = (user: User, body: unknown) => sut.call('DELETE', '/api/Users/Me', dashboard, bearer(user.token, json(body)));
const auditTable = (service: string) => defineAuditTable(service, 'audit_log', 1);
const identityDb = () => sut.system.identity.deps.db;

/** A subscriber with a key of their own and a device: everything the deletion must reach. */
async function subscriberWithEverything(): Promise<{ user: User; key: Auth; serial: string }> {
  const user = await newUser(sut, app);
  const subscribed = await sut.call('POST', '/api/Subscriptions', dashboard, bearer(user.token, json({ planId: monthlyPlanId })));
  expect(subscribed.status).toBe(201);
  const created = await waitFor('the subscription reaching identity (a key can be created)', async () => {
    const res = await sut.call(
      'POST',
      '/api/ApiKeys',
      dashboard,
      bearer(user.token, json({ name: "Lovelace's laptop", scopes: 'read:devices' })),
    );
    return res.status === 201 ? apiKeyCreatedResponseSchema.parse(await res.json()) : null;
  });
  const key = { key: created.key, secret: created.secret };
  const serial = `SN-${randomBytes(6).toString('hex')}`;
  const registered = await sut.call(
    'POST',
    '/api/Devices/Register',
    firmware,
    bearer(user.token, json({ serialNumber: serial, name: 'Desk DAC' })),
  );
  expect(registered.status).toBeLessThan(300);
  return { user, key, serial };
}

describe('account deletion', () => {
  it('a wrong password is 401 invalid_login and nothing changes', async () => {
    const { user, key } = await subscriberWithEverything();
    const refused = await deleteAccount(user, { password: `${PASSWORD}x` });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ code: 'invalid_login' });
    expect((await sut.call('GET', '/api/Users/Me', dashboard, bearer(user.token))).status).toBe(200);
    expect((await sut.call('GET', '/api/Dac', key)).status).toBe(200);
    expect((await user.login()).token).toBeTruthy();
  });

  it('with two-factor on, the code is required too; without it or with a wrong one nothing changes', async () => {
    const user = await newUser(sut, app);
    const enrolled = twoFactorEnrollmentSchema.parse(
      await (await sut.call('POST', '/api/Users/TwoFactor/Enroll', dashboard, bearer(user.token))).json(),
    );
    const totp = OTPAuth.URI.parse(enrolled.otpauthUri) as OTPAuth.TOTP;
    expect(
      (await sut.call('POST', '/api/Users/TwoFactor/Confirm', dashboard, bearer(user.token, json({ code: totp.generate() })))).status,
    ).toBe(200);
    const noCode = await deleteAccount(user, { password: PASSWORD });
    expect(noCode.status).toBe(401);
    expect(await noCode.json()).toMatchObject({ code: 'invalid_two_factor_code' });
    const wrong = await deleteAccount(user, { password: PASSWORD, code: '000000' });
    expect(wrong.status).toBe(401);
    expect((await sut.call('GET', '/api/Users/Me', dashboard, bearer(user.token))).status).toBe(200);
    const done = await deleteAccount(user, { password: PASSWORD, code: totp.generate({ timestamp: Date.now() + 30_000 }) });
    expect(done.status).toBe(200);
    const { rows } = await identityDb().query('SELECT count(*)::int AS n FROM two_factor WHERE user_id = $1', [user.id]);
    expect(rows[0]).toEqual({ n: 0 });
  });

  it('deletes: JWTs and keys refused at every replica, subscription canceled and devices erased through the bus, audit without personal data', async () => {
    const { user, key, serial } = await subscriberWithEverything();
    const otherSession = await user.login();
    const before = await sut.call('GET', '/api/Devices', app, bearer(user.token));
    expect(deviceListResponseSchema.parse(await before.json()).items).toHaveLength(1);

    const res = await deleteAccount(user, { password: PASSWORD });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ deleted: true, endedSessions: 2 });

    // The very next request, at either gateway: both sessions' tokens are refused.
    for (const token of [user.token, otherSession.token]) {
      const first = await sut.call('GET', '/api/Users/Me', dashboard, bearer(token));
      expect(first.status).toBe(401);
      expect(await first.json()).toMatchObject({ code: 'session_ended' });
      expect((await viaSecond('/api/Devices', app, token)).status).toBe(401);
    }
    // Nobody signs in with the old address and password any more.
    expect((await sut.call('POST', '/api/Users/Login', app, json({ email: user.email, password: PASSWORD }))).status).toBe(401);

    // keys revokes the user's key from user.deleted.v1 (written through to the cache both gateways read).
    await waitFor('the key refused after the deletion', async () => (await sut.call('GET', '/api/Dac', key)).status === 401);
    expect((await viaSecond('/api/Dac', key)).status).toBe(401);

    // billing ends the subscription at once; device erases the device (its serial is free again).
    await waitFor('the subscription canceled', async () => {
      const { rows } = await sut.system.billing.db.query<{ status: string }>('SELECT status FROM subscriptions WHERE user_id = $1', [
        user.id,
      ]);
      return rows.length === 1 && rows[0]!.status === 'canceled';
    });
    await waitFor('the device erased', async () => {
      const { rows } = await sut.system.device.db.query('SELECT 1 FROM devices WHERE owner_user_id = $1', [user.id]);
      return rows.length === 0;
    });
    const someoneElse = await newUser(sut, app);
    const reused = await sut.call(
      'POST',
      '/api/Devices/Register',
      firmware,
      bearer(someoneElse.token, json({ serialNumber: serial, name: 'Mine now' })),
    );
    expect(reused.status).toBeLessThan(300);

    // Identity keeps a tombstone without personal data.
    const { rows: users } = await identityDb().query(
      'SELECT email, first_name, last_name, password_hash, deleted_at FROM users WHERE id = $1',
      [user.id],
    );
    expect(users[0]).toMatchObject({ email: `deleted:${user.id}`, first_name: '-', last_name: '-', password_hash: '*' });
    expect(users[0]!.deleted_at).toBeInstanceOf(Date);
    const { rows: sessions } = await identityDb().query('SELECT device, address FROM sessions WHERE user_id = $1', [user.id]);
    expect(sessions).toEqual([
      { device: '', address: null },
      { device: '', address: null },
    ]);

    // Every trail keeps its entries of the user, none with the address or a name, and every chain still verifies.
    const localPart = user.email.split('@')[0]!.toLowerCase();
    await waitFor('keys and billing erased their trails', async () => {
      for (const [service, db] of [
        ['keys', sut.system.keys.deps.db],
        ['billing', sut.system.billing.db],
      ] as const) {
        const entries = await listAudit(db, auditTable(service), { userId: user.id, limit: 100, order: 'oldest' });
        if (!entries.some((entry) => entry.action === 'audit.erased')) return false;
      }
      return true;
    });
    for (const [service, db] of [
      ['identity', identityDb()],
      ['keys', sut.system.keys.deps.db],
      ['billing', sut.system.billing.db],
    ] as const) {
      const entries = await listAudit(db, auditTable(service), { userId: user.id, limit: 100, order: 'oldest' });
      expect(entries.length).toBeGreaterThan(1);
      const text = JSON.stringify(entries).toLowerCase();
      expect(text).not.toContain(localPart);
      expect(text).not.toContain('lovelace');
      expect(entries.every((entry) => entry.actor.clientAddress === null)).toBe(true);
      expect((await verifyAuditChain(db, auditTable(service))).problems).toEqual([]);
    }
    // keys' revocations reach identity's feed after the account is gone: relayed, and not kept there.
    await waitFor("keys' audit entries relayed", async () => {
      const { rows } = await sut.system.keys.deps.db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM audit_outbox WHERE sent_at IS NULL',
      );
      return rows[0]!.n === 0;
    });
    for (let i = 0; i < 10; i++) {
      const { rows } = await identityDb().query('SELECT action FROM audit_feed WHERE user_id = $1', [user.id]);
      expect(rows).toEqual([]);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const identityEntries = await listAudit(identityDb(), auditTable('identity'), { userId: user.id, limit: 100, order: 'oldest' });
    expect(identityEntries.map((entry) => entry.action)).toEqual(
      expect.arrayContaining(['account.created', 'account.deleted', 'audit.erased']),
    );
  });
});
