import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as OTPAuth from 'otpauth';
import { loginChallengeSchema, loginResponseSchema, twoFactorEnrollmentSchema } from '@acs/contracts';
import { sealPlaintextSecrets } from '@acs/identity-service';
import { startSystemUnderTest, type SystemUnderTest } from './system-harness.js';
import { PASSWORD, appKey, bearer, json, newUser, type Auth, type User } from './actors.js';

// Issue 32, item 4: TOTP (RFC 6238) two-factor sign-in with recovery codes. Our codes are checked
// against a third-party implementation (otpauth), and the spec's one-step login stays for other accounts.

let sut: SystemUnderTest;
let app: Auth;
let dashboard: Auth;

beforeAll(async () => {
  sut = await startSystemUnderTest({ LOGIN_MAX_FAILURES_PER_ADDRESS: '1000' });
  app = await appKey(sut, ['auth:register', 'auth:login']);
  dashboard = await appKey(sut, ['system:full-access', 'auth:login']);
}, 60_000);
afterAll(async () => sut?.stop());

const login = (email: string) => sut.call('POST', '/api/Users/Login', app, json({ email, password: PASSWORD }));
const second = (body: unknown) => sut.call('POST', '/api/Users/Login/TwoFactor', app, json(body));

/** Enrolls and confirms; the third-party TOTP is built from our otpauth:// URI, as an authenticator app would. */
async function turnOn(user: User): Promise<{ totp: OTPAuth.TOTP; recoveryCodes: string[] }> {
  const enrolled = await sut.call('POST', '/api/Users/TwoFactor/Enroll', dashboard, bearer(user.token));
  expect(enrolled.status).toBe(200);
  const { secret, otpauthUri } = twoFactorEnrollmentSchema.parse(await enrolled.json());
  const totp = OTPAuth.URI.parse(otpauthUri) as OTPAuth.TOTP;
  expect(totp).toBeInstanceOf(OTPAuth.TOTP);
  expect(totp.secret.base32).toBe(secret);
  expect(totp).toMatchObject({ algorithm: 'SHA1', digits: 6, period: 30, label: user.email, issuer: 'Audio Catalog' });
  const confirmed = await sut.call('POST', '/api/Users/TwoFactor/Confirm', dashboard, bearer(user.token, json({ code: totp.generate() })));
  expect(confirmed.status).toBe(200);
  const { recoveryCodes } = (await confirmed.json()) as { recoveryCodes: string[] };
  return { totp, recoveryCodes };
}

/** The next code the app will show (a code already used in this 30 s step is refused, by design). */
const nextCode = (totp: OTPAuth.TOTP): string => totp.generate({ timestamp: Date.now() + 30_000 });

describe('two-factor sign-in', () => {
  it('without 2FA the login is the spec one-step answer; enrolling alone changes nothing; a wrong first code does not turn it on', async () => {
    const user = await newUser(sut, app);
    expect(loginResponseSchema.safeParse(await (await login(user.email)).json()).success).toBe(true);
    const enrolled = await sut.call('POST', '/api/Users/TwoFactor/Enroll', dashboard, bearer(user.token));
    expect(enrolled.status).toBe(200);
    const wrong = await sut.call('POST', '/api/Users/TwoFactor/Confirm', dashboard, bearer(user.token, json({ code: '000000' })));
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ code: 'invalid_two_factor_code' });
    const res = await login(user.email);
    expect(res.status).toBe(200);
    expect(loginResponseSchema.safeParse(await res.json()).success).toBe(true);
  });

  it('with 2FA the login answers a challenge (202, no token); the code completes it; a used code is refused', async () => {
    const user = await newUser(sut, app);
    const { totp } = await turnOn(user);
    const first = await login(user.email);
    expect(first.status).toBe(202);
    const { challenge } = loginChallengeSchema.parse(await first.json());
    const code = nextCode(totp);
    const done = await second({ challenge, code });
    expect(done.status).toBe(200);
    const body = loginResponseSchema.parse(await done.json());
    expect((await sut.call('GET', '/api/Devices', dashboard, bearer(body.token))).status).toBe(200);
    // The challenge is spent, and the same code on a new challenge is a replay.
    expect((await second({ challenge, code })).status).toBe(401);
    const again = loginChallengeSchema.parse(await (await login(user.email)).json());
    const replay = await second({ challenge: again.challenge, code });
    expect(replay.status).toBe(401);
    expect(await replay.json()).toMatchObject({ code: 'invalid_two_factor_code' });
    // Enrolling again while on: 409.
    expect((await sut.call('POST', '/api/Users/TwoFactor/Enroll', dashboard, bearer(user.token))).status).toBe(409);
  });

  it('a recovery code signs in once; a challenge allows 5 attempts; wrong codes count as failed sign-ins (429)', async () => {
    const user = await newUser(sut, app);
    const { recoveryCodes } = await turnOn(user);
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    const { rows } = await sut.system.identity.deps.db.query<{ n: string }>('SELECT count(*) AS n FROM recovery_codes WHERE user_id = $1', [
      user.id,
    ]);
    expect(Number(rows[0]!.n)).toBe(10);
    const stored = await sut.system.identity.deps.db.query<{ code_hash: Buffer }>(
      'SELECT code_hash FROM recovery_codes WHERE user_id = $1',
      [user.id],
    );
    expect(stored.rows.map((r) => r.code_hash.toString('utf8'))).not.toContain(recoveryCodes[0]);

    const challengeOf = async () => loginChallengeSchema.parse(await (await login(user.email)).json()).challenge;
    const withRecovery = await second({ challenge: await challengeOf(), recoveryCode: recoveryCodes[0]!.toUpperCase() });
    expect(withRecovery.status).toBe(200);
    expect((await second({ challenge: await challengeOf(), recoveryCode: recoveryCodes[0] })).status).toBe(401);

    // 5 wrong codes on one challenge: the 6th try finds it spent, even with a right recovery code.
    const challenge = await challengeOf();
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await second({ challenge, code: '000000' })).status);
    // A password sign-in of a 2FA account counts until the second factor holds, and so does each wrong code:
    // (challenge, reused recovery code, challenge) are 3 of the pair's 5, two wrong codes the rest, then 429.
    expect(statuses).toEqual([401, 401, 429, 429, 429, 401]);
    expect((await second({ challenge, recoveryCode: recoveryCodes[1] })).status).toBe(401);
  });

  it('new recovery codes need a code and replace the old ones', async () => {
    const user = await newUser(sut, app);
    const account = async () =>
      (await (await sut.call('GET', '/api/Users/Me', dashboard, bearer(user.token))).json()) as Record<string, unknown>;
    expect(await account()).toMatchObject({ twoFactorEnabled: false });
    const regenerate = (code: string) =>
      sut.call('POST', '/api/Users/TwoFactor/RecoveryCodes', dashboard, bearer(user.token, json({ code })));
    const off = await regenerate('123456');
    expect(off.status).toBe(409);
    expect(await off.json()).toMatchObject({ code: 'two_factor_disabled' });

    const { totp, recoveryCodes: old } = await turnOn(user);
    expect(await account()).toMatchObject({ twoFactorEnabled: true });
    expect((await regenerate('000000')).status).toBe(401);
    const renewed = await regenerate(nextCode(totp));
    expect(renewed.status).toBe(200);
    const { recoveryCodes } = (await renewed.json()) as { recoveryCodes: string[] };
    expect(recoveryCodes).toHaveLength(10);
    expect(recoveryCodes).not.toContain(old[0]);
    const challengeOf = async () => loginChallengeSchema.parse(await (await login(user.email)).json()).challenge;
    expect((await second({ challenge: await challengeOf(), recoveryCode: old[0] })).status).toBe(401);
    expect((await second({ challenge: await challengeOf(), recoveryCode: recoveryCodes[0] })).status).toBe(200);
  });

  it('turning it off needs the password and a code; then the spec one-step login is back', async () => {
    const user = await newUser(sut, app);
    const account = async () =>
      (await (await sut.call('GET', '/api/Users/Me', dashboard, bearer(user.token))).json()) as Record<string, unknown>;
    const disable = (body: unknown) => sut.call('POST', '/api/Users/TwoFactor/Disable', dashboard, bearer(user.token, json(body)));
    const { totp } = await turnOn(user);
    // The password alone, or the code alone, changes nothing (the confirmation spent this step's code).
    const wrongPassword = await disable({ password: `${PASSWORD}x`, code: nextCode(totp) });
    expect(wrongPassword.status).toBe(401);
    expect(await wrongPassword.json()).toMatchObject({ code: 'invalid_login' });
    const wrongCode = await disable({ password: PASSWORD, code: '000000' });
    expect(wrongCode.status).toBe(401);
    expect(await wrongCode.json()).toMatchObject({ code: 'invalid_two_factor_code' });
    expect((await login(user.email)).status).toBe(202);
    const done = await disable({ password: PASSWORD, code: nextCode(totp) });
    expect(done.status).toBe(200);
    expect(await done.json()).toEqual({ twoFactorEnabled: false });
    const plain = await login(user.email);
    expect(plain.status).toBe(200);
    expect(loginResponseSchema.safeParse(await plain.json()).success).toBe(true);
    expect(await account()).toMatchObject({ twoFactorEnabled: false });
  });

  it('keeps the secret encrypted at rest (AES-256-GCM); a secret stored before that keeps working and is sealed at start', async () => {
    const user = await newUser(sut, app);
    const { totp } = await turnOn(user);
    const { db, totpKey, logger } = sut.system.identity.deps;
    const stored = async () =>
      (await db.query<{ secret: Buffer }>('SELECT secret FROM two_factor WHERE user_id = $1', [user.id])).rows[0]!.secret;
    const plaintext = Buffer.from(totp.secret.bytes);
    expect((await stored()).length).toBe(48);
    expect((await stored()).includes(plaintext)).toBe(false);

    // A row from before migration 013 (20 plaintext bytes): sign-in still works, and the start-up pass seals it.
    await db.query('UPDATE two_factor SET secret = $2 WHERE user_id = $1', [user.id, plaintext]);
    const challenge = loginChallengeSchema.parse(await (await login(user.email)).json()).challenge;
    expect((await second({ challenge, code: nextCode(totp) })).status).toBe(200);
    expect(await sealPlaintextSecrets(db, totpKey, logger)).toBeGreaterThanOrEqual(1);
    expect((await stored()).length).toBe(48);
    expect((await stored()).includes(plaintext)).toBe(false);
  });
});
