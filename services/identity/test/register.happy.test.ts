import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { registerResponseSchema } from '@acs/contracts';
import { buildRegisterBody, captureLogger, findRow, startIdentity, type IdentityHarness } from './harness.js';

let identity: IdentityHarness;
let noTrial: IdentityHarness | undefined;
let lines: ReturnType<typeof captureLogger>['lines'];

beforeAll(async () => {
  const captured = captureLogger();
  lines = captured.lines;
  identity = await startIdentity({ logger: captured.logger });
});

afterAll(async () => {
  await noTrial?.stop();
  await identity?.stop();
});

const TRIAL_SECONDS = 14 * 24 * 3600;

describe('POST /api/Users/Register', () => {
  it('answers 201 with the user, the effective role 1 and a 14-day trial, never the hash', async () => {
    const body = buildRegisterBody();
    const before = Math.floor(Date.now() / 1000);
    const response = await identity.register(body);
    const after = Math.floor(Date.now() / 1000);
    expect(response.status).toBe(201);
    const text = await response.text();
    const json = registerResponseSchema.strict().parse(JSON.parse(text));
    expect(Object.keys(json).sort()).toEqual(['email', 'firstName', 'id', 'isTrialSubscription', 'lastName', 'role', 'trialExpiresAt']);
    expect(json).toMatchObject({ email: body.email, firstName: 'Ada', lastName: 'Lovelace', role: 1, isTrialSubscription: true });
    expect(json.id).toBeGreaterThan(0);
    const trialEnd = Date.parse(json.trialExpiresAt!) / 1000;
    expect(json.trialExpiresAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(trialEnd).toBeGreaterThanOrEqual(before + TRIAL_SECONDS);
    expect(trialEnd).toBeLessThanOrEqual(after + TRIAL_SECONDS);
    expect(text).not.toContain('$2b$');
    expect(text).not.toContain(body.password);
  });

  it('stores the e-mail as given, the account role Free, a bcrypt hash at the configured cost and the trial end', async () => {
    const body = buildRegisterBody({ email: `MiXeD.${Date.now()}@Example.COM`, firstName: '  Grace ', lastName: '\tHopper  ' });
    const response = await identity.register(body);
    const json = (await response.json()) as { id: number; trialExpiresAt: string; firstName: string; lastName: string };
    expect(json).toMatchObject({ firstName: 'Grace', lastName: 'Hopper' });
    const row = await findRow(identity.db, body.email);
    expect(row).toMatchObject({
      id: json.id,
      email: body.email,
      first_name: 'Grace',
      last_name: 'Hopper',
      account_role: 0,
      plan_type: 0,
      subscription_ends_at: null,
      version: 1,
    });
    expect(row!.password_hash).toMatch(/^\$2b\$04\$/);
    expect(row!.trial_ends_at!.toISOString()).toBe(json.trialExpiresAt);
  });

  it('writes the authorization record through to the cache before answering', async () => {
    const response = await identity.register(buildRegisterBody());
    const json = (await response.json()) as { id: number; trialExpiresAt: string };
    const cached = await identity.cachedAuthz(json.id);
    expect(cached).toEqual({
      version: 1,
      record: {
        userId: json.id,
        accountRole: 0,
        trialEndsAt: Date.parse(json.trialExpiresAt) / 1000,
        subscriptionEndsAt: null,
        planType: 0,
        disabled: false,
        quota: { plan: 'trial', perMonth: 100_000, perDay: 10_000 }, // TRIAL_QUOTA's default
        // A new account's address is not verified yet (issue 32).
        emailUnverified: true,
      },
      ttlSeconds: expect.any(Number),
    });
    expect(cached!.ttlSeconds).toBeGreaterThan(24 * 3600 - 60);
    expect(cached!.ttlSeconds).toBeLessThanOrEqual(24 * 3600);
  });

  it('accepts names and passwords in any script, emoji and spaces included', async () => {
    const body = buildRegisterBody({ firstName: 'Zoë', lastName: '王', password: 'mot de passe très sûr 🎧🎶' });
    const response = await identity.register(body);
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({ firstName: 'Zoë', lastName: '王' });
  });

  it('writes an audit line with the user id and the request id, and no secret', async () => {
    const body = buildRegisterBody();
    const response = await identity.register(body, { headers: { 'x-request-id': 'req-register-audit' } });
    const { id } = (await response.json()) as { id: number };
    const audit = lines.find((line) => line.audit === 'user.registered' && line.userId === id);
    expect(audit).toMatchObject({ requestId: 'req-register-audit' });
    const all = JSON.stringify(lines);
    expect(all).not.toContain(body.password);
    expect(all).not.toContain('$2b$');
  });

  it('with TRIAL_DURATION_SECONDS=0 a new account is Free with no trial', async () => {
    noTrial = await startIdentity({ env: { TRIAL_DURATION_SECONDS: '0' } });
    const response = await noTrial.register(buildRegisterBody());
    expect(response.status).toBe(201);
    const json = (await response.json()) as { id: number };
    expect(json).toMatchObject({ role: 0, isTrialSubscription: false, trialExpiresAt: null });
    expect((await noTrial.cachedAuthz(json.id))!.record).toMatchObject({ accountRole: 0, trialEndsAt: null });
  });
});
