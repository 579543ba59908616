import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startSystemUnderTest, type SystemUnderTest } from './system-harness.js';
import { PASSWORD, appKey, bearer, json, newUser, type Auth } from './actors.js';
import { startSmtpSink, type SmtpSink } from './smtp-sink.js';

// Issue 32, item 2: password change (ends every other session) and reset by e-mail (single use,
// 15 minutes, stored hashed, the same answer for unknown addresses, throttled like sign-in), mail
// received by a real SMTP server.

let sut: SystemUnderTest;
let smtp: SmtpSink;
let app: Auth;
let dashboard: Auth;
const NEW_PASSWORD = 'quartz-lantern-8813-meadow';

beforeAll(async () => {
  smtp = await startSmtpSink();
  sut = await startSystemUnderTest({
    SMTP_URL: smtp.url,
    DASHBOARD_PUBLIC_URL: 'https://accounts.example.test/',
    // Every client here is 127.0.0.1: only the per-account-and-address limit is under test.
    LOGIN_MAX_FAILURES_PER_ADDRESS: '1000',
  });
  app = await appKey(sut, ['auth:register', 'auth:login']);
  dashboard = await appKey(sut, ['system:full-access']);
}, 60_000);
afterAll(async () => {
  await sut?.stop();
  await smtp?.close();
});

async function signIn(email: string, password: string): Promise<Response> {
  return sut.call('POST', '/api/Users/Login', app, json({ email, password }));
}
const tokenOf = async (res: Response): Promise<string> => ((await res.json()) as { token: string }).token;
const devices = (token: string) => sut.call('GET', '/api/Devices', dashboard, bearer(token));
const resetLinkIn = (text: string): string =>
  /https:\/\/accounts\.example\.test\/reset-password\?token=([A-Za-z0-9_-]{43})/.exec(text)![1]!;

async function expectSessionEnded(res: Response): Promise<void> {
  expect(res.status).toBe(401);
  expect(await res.json()).toMatchObject({ code: 'session_ended' });
}

describe('password change', () => {
  it('needs the current password, applies the policy, ends every other session and keeps the calling one', async () => {
    const user = await newUser(sut, app);
    const other = await tokenOf(await signIn(user.email, PASSWORD));
    const change = (body: unknown) => sut.call('POST', '/api/Users/Password', dashboard, bearer(user.token, json(body)));

    const wrong = await change({ currentPassword: 'not-the-password-at-all', newPassword: NEW_PASSWORD });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ code: 'invalid_login' });
    const weak = await change({ currentPassword: PASSWORD, newPassword: 'password1234' });
    expect(weak.status).toBe(400);
    expect(await weak.json()).toMatchObject({ code: 'weak_password', details: [expect.objectContaining({ path: 'body.newPassword' })] });
    expect((await devices(other)).status).toBe(200);

    const ok = await change({ currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ endedSessions: 1 });
    await expectSessionEnded(await devices(other));
    expect((await devices(user.token)).status).toBe(200);
    expect((await signIn(user.email, PASSWORD)).status).toBe(401);
    expect((await signIn(user.email, NEW_PASSWORD)).status).toBe(200);
  });

  it('wrong current passwords are limited like sign-ins (429 with Retry-After)', async () => {
    const user = await newUser(sut, app);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await sut.call(
        'POST',
        '/api/Users/Password',
        dashboard,
        bearer(user.token, json({ currentPassword: `guess-number-${i}-wrong`, newPassword: NEW_PASSWORD })),
      );
      statuses.push(res.status);
      if (res.status === 429) expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
  });
});

/** The reset mails (each new account also gets its verification mail, which may come first or later). */
const RESET_SUBJECT = /^Subject: Reset your password/m;

describe('password reset by e-mail', () => {
  it('answers alike for a known and an unknown address; only the known one gets a link; the link works once and ends every session', async () => {
    const user = await newUser(sut, app);
    const request = (email: string) => sut.call('POST', '/api/Users/PasswordReset', app, json({ email }));
    const known = await request(user.email);
    const unknown = await request(`nobody-${user.id}@example.com`);
    expect(known.status).toBe(202);
    expect(unknown.status).toBe(202);
    expect(await known.json()).toEqual(await unknown.json());

    const mail = await smtp.next(user.email, 10_000, RESET_SUBJECT);
    expect(mail.raw).toMatch(/^Subject: Reset your password/m);
    const token = resetLinkIn(mail.text);
    // Stored only as its SHA-256.
    const { rows } = await sut.system.identity.deps.db.query<{ token_hash: Buffer }>(
      'SELECT token_hash FROM password_resets WHERE user_id = $1',
      [user.id],
    );
    expect(rows.map((row) => row.token_hash.toString('hex'))).toEqual([createHash('sha256').update(token).digest('hex')]);

    const complete = (body: unknown) => sut.call('POST', '/api/Users/PasswordReset/Complete', app, json(body));
    const weak = await complete({ token, newPassword: 'aaaaaaaaaaaaaaaa' });
    expect(weak.status).toBe(400);
    expect(await weak.json()).toMatchObject({ code: 'weak_password' });
    // A refused password leaves the link usable.
    const done = await complete({ token, newPassword: NEW_PASSWORD });
    expect(done.status).toBe(200);
    expect(await done.json()).toEqual({ endedSessions: 1 });
    await expectSessionEnded(await devices(user.token));
    const again = await complete({ token, newPassword: `${NEW_PASSWORD}-2` });
    expect(again.status).toBe(400);
    expect(await again.json()).toMatchObject({ code: 'invalid_reset_token' });
    expect((await signIn(user.email, NEW_PASSWORD)).status).toBe(200);
    // No mail went to the unknown address.
    expect(smtp.received.some((m) => m.to.includes(`nobody-${user.id}@example.com`))).toBe(false);
  });

  it('a link older than 15 minutes, a forged token and a spent sibling are refused', async () => {
    const user = await newUser(sut, app);
    const request = () => sut.call('POST', '/api/Users/PasswordReset', app, json({ email: user.email }));
    expect((await request()).status).toBe(202);
    const first = resetLinkIn((await smtp.next(user.email, 10_000, RESET_SUBJECT)).text);
    expect((await request()).status).toBe(202);
    const second = resetLinkIn((await smtp.next(user.email, 10_000, RESET_SUBJECT)).text);
    await sut.system.identity.deps.db.query("UPDATE password_resets SET expires_at = now() - interval '1 second' WHERE token_hash = $1", [
      createHash('sha256').update(first).digest(),
    ]);
    const complete = (token: string) =>
      sut.call('POST', '/api/Users/PasswordReset/Complete', app, json({ token, newPassword: NEW_PASSWORD }));
    for (const token of [first, 'A'.repeat(43)]) {
      const res = await complete(token);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: 'invalid_reset_token' });
    }
    expect((await request()).status).toBe(202);
    const third = resetLinkIn((await smtp.next(user.email, 10_000, RESET_SUBJECT)).text);
    expect((await complete(second)).status).toBe(200);
    // Resetting spent the other outstanding link.
    expect((await complete(third)).status).toBe(400);
  });

  it('requests are limited like sign-ins, for a real and an unknown address alike', async () => {
    const user = await newUser(sut, app);
    for (const email of [user.email, `nobody-else-${user.id}@example.com`]) {
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push((await sut.call('POST', '/api/Users/PasswordReset', app, json({ email }))).status);
      expect(statuses).toEqual([202, 202, 202, 202, 202, 429]);
    }
  });
});
