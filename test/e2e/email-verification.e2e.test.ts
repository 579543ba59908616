import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { accountViewSchema } from '@acs/contracts';
import { startSystemUnderTest, type SystemUnderTest } from './system-harness.js';
import { appKey, bearer, json, newUser, type Auth } from './actors.js';
import { startSmtpSink, type SmtpSink } from './smtp-sink.js';

// Issue 32, item 3: a link sent at registration; an unverified account signs in; where the operator
// requires it (REQUIRE_VERIFIED_EMAIL_FOR_KEYS), keys are created only once the address is verified.

let sut: SystemUnderTest;
let smtp: SmtpSink;
let app: Auth;
let dashboard: Auth;

beforeAll(async () => {
  smtp = await startSmtpSink();
  sut = await startSystemUnderTest({ SMTP_URL: smtp.url, REQUIRE_VERIFIED_EMAIL_FOR_KEYS: 'true' });
  app = await appKey(sut, ['auth:register', 'auth:login']);
  dashboard = await appKey(sut, ['system:full-access']);
}, 60_000);
afterAll(async () => {
  await sut?.stop();
  await smtp?.close();
});

const linkToken = (text: string): string => /\/verify-email\?token=([A-Za-z0-9_-]{43})/.exec(text)![1]!;
const me = async (token: string) =>
  accountViewSchema.parse(await (await sut.call('GET', '/api/Users/Me', dashboard, bearer(token))).json());
const createKey = (token: string) =>
  sut.call('POST', '/api/ApiKeys', dashboard, bearer(token, json({ name: 'app', scopes: 'read:devices' })));

describe('e-mail verification', () => {
  it('registration mails a link; unverified: signs in, keys refused (403 email_unverified); verified: keys on the next request', async () => {
    const user = await newUser(sut, app);
    const mail = await smtp.next(user.email);
    expect(mail.raw).toMatch(/^Subject: Verify your e-mail address/m);
    expect(await me(user.token)).toMatchObject({ id: user.id, email: user.email, emailVerified: false, emailVerifiedAt: null });

    const refused = await createKey(user.token);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ code: 'email_unverified', hint: expect.any(String) });

    const token = linkToken(mail.text);
    const verified = await sut.call('POST', '/api/Users/VerifyEmail', app, json({ token }));
    expect(verified.status).toBe(200);
    expect(await verified.json()).toMatchObject({ email: user.email, emailVerifiedAt: expect.any(String) });
    expect((await me(user.token)).emailVerified).toBe(true);
    // The same token, without a new sign-in.
    expect((await createKey(user.token)).status).toBe(201);

    const again = await sut.call('POST', '/api/Users/VerifyEmail', app, json({ token }));
    expect(again.status).toBe(400);
    expect(await again.json()).toMatchObject({ code: 'invalid_verification_token' });
  });

  it('a new link on request, at most 5 an hour; a forged token is refused', async () => {
    const user = await newUser(sut, app);
    await smtp.next(user.email); // the registration's
    const resend = () => sut.call('POST', '/api/Users/VerifyEmail/Resend', dashboard, bearer(user.token));
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await resend()).status);
    expect(statuses).toEqual([202, 202, 202, 202, 429]);
    const newest = linkToken((await smtp.next(user.email)).text);
    const forged = await sut.call('POST', '/api/Users/VerifyEmail', app, json({ token: 'B'.repeat(43) }));
    expect(forged.status).toBe(400);
    expect((await sut.call('POST', '/api/Users/VerifyEmail', app, json({ token: newest }))).status).toBe(200);
    const after = await resend();
    expect(after.status).toBe(202);
    expect(((await after.json()) as { message: string }).message).toContain('already verified');
  });
});
