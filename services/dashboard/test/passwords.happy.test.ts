import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { PASSWORD, registerUser, signIn, startDashboardSystem, type DashboardSystem } from './harness.js';
import { textOf } from './browser.js';

// Issue 32 in the dashboard (fetch-based): changing the password signs the other browsers out, a
// reset link from the dev mailbox (no SMTP server: npm start's offline flow) sets a new one, and
// signing out ends the token's session.
let system: DashboardSystem;
let dataDir: string;
const NEW_PASSWORD = 'copper-willow-5521-harbor';

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'acs-dash-mail-'));
  // No SMTP_URL: identity keeps mail in DATA_DIR's dev mailbox, which the dashboard shows at /dev/mailbox.
  system = await startDashboardSystem({ DATA_DIR: dataDir });
}, 90_000);
afterAll(async () => {
  await system?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

describe('password change in the dashboard', () => {
  it('needs the current password; signs the other browser out and keeps this one', async () => {
    const laptop = system.browser();
    const { email } = await registerUser(laptop);
    const phone = system.browser();
    expect((await signIn(phone, email)).path).toBe('/');

    await laptop.get('/account/password');
    const wrong = await laptop.post('/account/password', { currentPassword: 'not-the-password-at-all', newPassword: NEW_PASSWORD });
    expect(wrong.status).toBe(401);
    expect(textOf(wrong.html)).toContain('The current password is incorrect.');
    expect(wrong.html).not.toContain(NEW_PASSWORD);
    const changed = await laptop.post('/account/password', { currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
    expect(changed.path).toBe('/');
    expect(textOf(changed.html)).toContain('Your password is changed. 1 other sign-in was signed out.');

    const ended = await phone.get('/keys');
    expect(ended.path).toBe('/sign-in');
    expect(textOf(ended.html)).toContain('Your sign-in has ended. Please sign in again.');
    expect((await laptop.get('/keys')).path).toBe('/keys');
  });
});

describe('password reset through the dev mailbox', () => {
  it('the link from the mailbox page sets a new password; the old one stops working', async () => {
    const browser = system.browser();
    const { email } = await registerUser(browser);
    await browser.post('/sign-out', {});
    const signInPage = await browser.get('/sign-in');
    expect(signInPage.html).toContain('href="/forgot-password"');
    await browser.get('/forgot-password');
    const asked = await browser.post('/forgot-password', { email });
    expect(textOf(asked.html)).toContain('If an account has this e-mail address, a link to reset its password is on its way.');

    let link: string | undefined;
    for (let i = 0; i < 50 && !link; i++) {
      const mailbox = await browser.get('/dev/mailbox');
      expect(mailbox.status).toBe(200);
      link = mailbox.html
        .split('<article class="mail">')
        .find((m) => m.includes(email))
        ?.match(/href="(http:\/\/127\.0\.0\.1:8086\/reset-password\?token=[A-Za-z0-9_-]+)"/)?.[1];
      if (!link) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(link).toBeDefined();
    const form = await browser.get(new URL(link!).pathname + new URL(link!).search);
    expect(form.status).toBe(200);
    const done = await browser.post('/reset-password', { token: new URL(link!).searchParams.get('token')!, newPassword: NEW_PASSWORD });
    expect(done.path).toBe('/sign-in');
    expect(textOf(done.html)).toContain('Your password is changed. Sign in with it.');
    expect((await signIn(browser, email)).status).toBe(401);
    expect((await signIn(browser, email, NEW_PASSWORD)).path).toBe('/');
  });
});

describe('sign-out', () => {
  it("ends the token's session at identity, not only in this browser", async () => {
    const browser = system.browser();
    const { email } = await registerUser(browser);
    const app = { key: system.sut.seed.key, secret: system.sut.seed.secret };
    const login = await system.sut.call('POST', '/api/Users/Login', app, {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: PASSWORD }),
    });
    const { token } = (await login.json()) as { token: string };
    const sessions = async () => {
      const { rows } = await system.sut.system.identity.deps.db.query<{ n: string }>(
        'SELECT count(*) AS n FROM sessions s JOIN users u ON u.id = s.user_id WHERE lower(u.email) = lower($1) AND s.ended_at IS NULL',
        [email],
      );
      return Number(rows[0]!.n);
    };
    expect(token).toBeTruthy();
    expect(await sessions()).toBe(2);
    await browser.post('/sign-out', {});
    expect(await sessions()).toBe(1);
  });
});

describe('e-mail verification in the dashboard', () => {
  it('the overview says the address is unverified; the link from the mailbox verifies it with a button', async () => {
    const browser = system.browser();
    const { email, page } = await registerUser(browser);
    expect(textOf(page.html)).toContain('Your e-mail address is not verified');
    const again = await browser.post('/account/verification', {});
    expect(textOf(again.html)).toContain('A link to verify your e-mail address is on its way.');

    let link: string | undefined;
    for (let i = 0; i < 50 && !link; i++) {
      const mailbox = await browser.get('/dev/mailbox');
      link = mailbox.html
        .split('<article class="mail">')
        .find((m) => m.includes(email) && m.includes('verify-email'))
        ?.match(/href="(http:\/\/127\.0\.0\.1:8086\/verify-email\?token=[A-Za-z0-9_-]+)"/)?.[1];
      if (!link) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(link).toBeDefined();
    const url = new URL(link!);
    const form = await browser.get(url.pathname + url.search);
    expect(textOf(form.html)).toContain('Confirm that this address is yours.');
    const done = await browser.post('/verify-email', { token: url.searchParams.get('token')! });
    expect(textOf(done.html)).toContain(`Thank you: ${email} is verified.`);
    expect(textOf((await browser.get('/')).html)).not.toContain('not verified');
  });
});

describe('account export', () => {
  it('downloads the account, sessions, keys (no secrets), devices, subscriptions and audit entries as one JSON file', async () => {
    const browser = system.browser();
    const { email } = await registerUser(browser);
    await browser.get('/keys/new');
    const created = await browser.post('/keys', { name: 'exported', scopes: ['read:devices'], environment: 'test' });
    expect(created.status).toBe(200);
    const download = await browser.get('/account/export');
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toContain('application/json');
    expect(download.headers.get('content-disposition')).toMatch(/^attachment; filename="account-\d+-\d{4}-\d{2}-\d{2}\.json"$/);
    const data = JSON.parse(download.html) as Record<string, unknown> & {
      account: { email: string };
      sessions: { current: boolean }[];
      apiKeys: { name: string; secret?: string }[];
    };
    expect(data.account.email).toBe(email);
    expect(data.sessions.filter((s) => s.current)).toHaveLength(1);
    expect(data.apiKeys.map((k) => k.name)).toEqual(['exported']);
    expect(data.apiKeys[0]!.secret).toBeUndefined();
    expect(data).toMatchObject({ devices: [], subscriptions: [] });
    const actions = (data.auditEntries as { action: string; service: string }[]).map((entry) => `${entry.service} ${entry.action}`);
    expect(actions).toContain('identity account.created');
  });
});

describe('account deletion in the dashboard', () => {
  it('a wrong password deletes nothing; the right one deletes the account and signs every browser out', async () => {
    const laptop = system.browser();
    const { email } = await registerUser(laptop);
    const phone = system.browser();
    expect((await signIn(phone, email)).path).toBe('/');
    expect((await laptop.get('/')).html).toContain('href="/account/delete"');
    const page = await laptop.get('/account/delete');
    expect(textOf(page.html)).toContain('This cannot be undone.');

    const wrong = await laptop.post('/account/delete', { password: 'not-the-password-at-all', code: '' });
    expect(wrong.status).toBe(401);
    expect(textOf(wrong.html)).toContain('Nothing was deleted.');
    expect((await phone.get('/keys')).path).toBe('/keys');

    const deleted = await laptop.post('/account/delete', { password: PASSWORD, code: '' });
    expect(deleted.path).toBe('/sign-in');
    expect(textOf(deleted.html)).toContain('Your account is deleted.');
    expect((await phone.get('/keys')).path).toBe('/sign-in');
    const again = system.browser();
    expect((await again.get('/sign-in')).status).toBe(200);
    const refused = await again.post('/sign-in', { email, password: PASSWORD });
    expect(refused.path).toBe('/sign-in');
  });
});

describe('sessions in the dashboard', () => {
  it('lists where the user is signed in; ending a session signs that browser out; ending all others keeps this one', async () => {
    const laptop = system.browser();
    const { email } = await registerUser(laptop);
    const phone = system.browser();
    await signIn(phone, email);
    const tablet = system.browser();
    await signIn(tablet, email);

    const listed = await laptop.get('/account/sessions');
    expect(listed.status).toBe(200);
    expect(textOf(listed.html)).toContain('This browser');
    const ends = [...listed.html.matchAll(/action="\/account\/sessions\/([A-Za-z0-9_-]{12})\/end"/g)].map((m) => m[1]!);
    expect(ends).toHaveLength(2);
    // The newest other session is the tablet's (newest first).
    const one = await laptop.post(`/account/sessions/${ends[0]}/end`, {});
    expect(one.path).toBe('/account/sessions');
    expect(textOf(one.html)).toContain('is ended.');
    expect((await tablet.get('/keys')).path).toBe('/sign-in');
    expect((await phone.get('/keys')).path).toBe('/keys');

    const rest = await laptop.post('/account/sessions/end-others', {});
    expect(textOf(rest.html)).toContain('1 other session is ended.');
    expect(textOf(rest.html)).toContain('No other sessions.');
    expect((await phone.get('/keys')).path).toBe('/sign-in');
    expect((await laptop.get('/keys')).path).toBe('/keys');
  });
});
