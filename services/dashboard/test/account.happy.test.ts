import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SPEC_ERRORS } from '@acs/errors';
import { textOf } from './browser.js';
import { createdCredentials, keyIdOf, keyWindows, registerUser, signIn, startDashboardSystem, type DashboardSystem } from './harness.js';

// The happy paths of a user with a trial (the default 14 days): account, keys, devices.
let system: DashboardSystem;

beforeAll(async () => {
  system = await startDashboardSystem();
}, 90_000);
afterAll(async () => system?.stop());

const gatewayCall = (path: string, auth: { key: string; secret: string }, init: RequestInit = {}) =>
  system.sut.call(init.method ?? 'GET', path, auth, init);

describe('register, sign in, overview, sign out', () => {
  it('registering signs the user in and shows who they are: e-mail, role, trial end', async () => {
    const browser = system.browser();
    const { email, page } = await registerUser(browser);
    const text = textOf(page.html);
    expect(text).toContain('Welcome! Your account is ready.');
    expect(text).toContain(`Signed in as ${email}`);
    expect(text).toContain('Role Subscriber'); // effective role during the trial
    expect(text).toMatch(/Trial active until \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);
    expect(text).toMatch(/You can create and use API keys Because your trial runs until \d{4}-\d{2}-\d{2}/);
    expect(text).toContain('0 active keys');
    expect(text).toContain('0 requests by your keys in the last 30 days');
    // The trial's quota (identity's TRIAL_QUOTA default), used / left, from GET /api/Usage.
    expect(text).toContain('This month: 0 used / 100,000 left of 100,000');
    expect(text).toContain('Today: 0 used / 10,000 left of 10,000');
    expect(text).toContain('All your keys together, under the trial.');
  });

  it('signing out ends the session; signing in again shows the overview', async () => {
    const browser = system.browser();
    const { email } = await registerUser(browser);
    const out = await browser.post('/sign-out', {});
    expect(out.path).toBe('/sign-in');
    expect(textOf(out.html)).toContain('You are signed out.');
    const again = await browser.get('/keys');
    expect(again.redirects).toEqual(['/sign-in?next=%2Fkeys']);

    const back = await signIn(browser, email);
    expect(back.redirects).toEqual(['/']);
    expect(textOf(back.html)).toContain(`Signed in as ${email}`);
  });

  it('a wrong password shows a readable 401, keeps the e-mail and never echoes the password', async () => {
    const browser = system.browser();
    const { email } = await registerUser(browser);
    await browser.post('/sign-out', {});
    const page = await signIn(browser, email, 'not-the-password-at-all');
    expect(page.status).toBe(401);
    expect(textOf(page.html).split('The e-mail or password is incorrect.').length - 1).toBe(1); // once, beside the field
    expect(page.html).toContain(`value="${email}"`);
    expect(page.html).not.toContain('not-the-password-at-all');
  });

  it('registration errors are shown as sentences (400 weak password); a taken e-mail is sent to sign in, told nothing more', async () => {
    const first = system.browser();
    const { email } = await registerUser(first);
    const second = system.browser();
    await second.get('/register');
    const duplicate = await second.post('/register', {
      email: email.toUpperCase(),
      firstName: 'A',
      lastName: 'B',
      password: 'long-enough-password-9',
    });
    // Whether identity answers 409 or acknowledges it like a new account: sign in, nothing created, nobody signed in.
    expect(duplicate.path).toBe('/sign-in');
    expect(textOf(duplicate.html)).toContain('Please sign in with your e-mail address and password.');
    expect(textOf(duplicate.html)).not.toMatch(/already exists/i);
    const weak = await second.post('/register', { email: `x${email}`, firstName: 'A', lastName: 'B', password: 'short' });
    expect(weak.status).toBe(400);
    expect(weak.html).toMatch(/<p class="field-error" id="field-password-error">[^<]+<\/p>/);
    expect(textOf(weak.html)).not.toContain('Please check'); // the field says it; no summary repeats it
    expect(weak.html).not.toMatch(/at \S+\.(ts|js):\d+/); // never a stack trace
  });
});

describe('API keys', () => {
  it('creates a key: the secret is shown once, the listing never shows it again, and the key works at the gateway with its scopes', async () => {
    const browser = system.browser();
    await registerUser(browser);
    await browser.get('/keys');
    const created = await browser.post('/keys', { name: 'catalog reader', scopes: ['read:devices'], environment: 'test' });
    expect(created.redirects).toEqual([expect.stringMatching(/^\/keys\/[0-9a-f-]{36}$/)]);
    expect(created.headers.get('cache-control')).toBe('no-store');
    expect(textOf(created.html)).toContain('it is shown only this once');
    const credentials = createdCredentials(created);
    expect(credentials.key).toMatch(/^acs_test_[A-Za-z0-9]+$/);

    const again = await browser.get('/keys');
    expect(again.html).toContain(credentials.key);
    expect(again.html).not.toContain(credentials.secret);
    expect(browser.jar.has('acs_flash')).toBe(false);

    expect((await gatewayCall('/api/Dac?pageSize=1', credentials)).status).toBe(200);
    const login = await gatewayCall('/api/Users/Login', credentials, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(login.status).toBe(403);
    expect(await login.json()).toMatchObject({ message: SPEC_ERRORS.insufficientScope.message });
  });

  it('changes the scopes (applied on the next request), then revokes the key (the gateway answers 401)', async () => {
    const browser = system.browser();
    await registerUser(browser);
    await browser.get('/keys');
    const credentials = createdCredentials(await browser.post('/keys', { name: 'tool', scopes: ['read:devices'] }));
    const id = keyIdOf(browser.lastPage!, credentials.key);

    const changed = await browser.post(`/keys/${id}/edit`, { name: 'tool', scopes: ['auth:login', 'register:device'], rateLimits: '' });
    expect(changed.redirects).toEqual([`/keys/${id}`]);
    expect(textOf(changed.html)).toContain(
      'Saved. “tool” now has scopes auth:login register:device, rate limits deployment default and allowed addresses any address',
    );
    expect((await gatewayCall('/api/Dac?pageSize=1', credentials)).status).toBe(403);

    const revoked = await browser.post(`/keys/${id}/revoke`, {});
    expect(textOf(revoked.html)).toContain('The key “tool” is revoked');
    expect(textOf(revoked.html)).toMatch(/revoked \d{4}-\d{2}-\d{2}/);
    expect((await gatewayCall('/api/Devices', credentials)).status).toBe(401);
  });

  it("shows the gateway's refusals: unknown or reserved scopes are 400, and nothing is created", async () => {
    const browser = system.browser();
    await registerUser(browser);
    await browser.get('/keys');
    const refused = await browser.post('/keys', { name: 'greedy', scopes: ['system:full-access'] });
    expect(refused.status).toBe(400);
    expect(textOf(refused.html)).toContain('system:full-access');
    expect(refused.html).toContain('value="greedy"'); // the form is shown again as it was sent
    expect(textOf((await browser.get('/keys')).html)).toContain('You have no active API keys yet.');
  });
});

describe('API keys: expiry on a chosen date', () => {
  it('creates a key that works through the chosen day (UTC), shown on its card; bad dates are refused with the form kept', async () => {
    const browser = system.browser();
    await registerUser(browser);
    await browser.get('/keys');
    const day = new Date(Date.now() + 60 * 86_400_000).toISOString().slice(0, 10);
    const created = await browser.post('/keys', { name: 'until a date', scopes: ['read:devices'], expiresInDays: 'date', expiresOn: day });
    expect(created.redirects).toEqual([expect.stringMatching(/^\/keys\/[0-9a-f-]{36}$/)]);
    const credentials = createdCredentials(created);
    const endOfDay = new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000);
    expect((await gatewayCall('/api/Dac?pageSize=1', credentials)).status).toBe(200);
    // The key's page states the instant the gateway will refuse the key from, as the keys service stored it.
    expect(textOf((await browser.get(created.path)).html)).toContain(`Expires ${endOfDay.toISOString().slice(0, 10)} 00:00 UTC`);

    const past = await browser.post('/keys', {
      name: 'yesterday',
      scopes: ['read:devices'],
      expiresInDays: 'date',
      expiresOn: '2020-01-01',
    });
    expect(past.status).toBe(400);
    expect(textOf(past.html)).toContain('Choose today or a later date.');
    expect(past.html).toMatch(/name="expiresOn" value="2020-01-01"/);
    const ignored = await browser.post('/keys', { name: 'mixed', scopes: ['read:devices'], expiresInDays: '30', expiresOn: day });
    expect(ignored.status).toBe(400);
    expect(textOf(ignored.html)).toContain('To use the date, choose “on the date below”');
    expect(textOf((await browser.get('/keys')).html)).not.toMatch(/yesterday|mixed/);
  });
});

describe('API keys: rate limits', () => {
  it('sets limits on create and under Edit; the gateway applies them; a malformed value is refused by the form, nothing sent', async () => {
    const browser = system.browser();
    await registerUser(browser);
    await browser.get('/keys');
    const malformed = await browser.post('/keys', { name: 'typo', scopes: ['read:devices'], rateLimits: '20 per second' });
    expect(malformed.status).toBe(400);
    expect(malformed.html).toMatch(/id="field-rateLimits" type="text" name="rateLimits" value="20 per second"[^>]*aria-invalid="true"/);
    expect(textOf(malformed.html)).toContain('e.g. 20/1s,50000/1d');
    expect(textOf((await browser.get('/keys')).html)).toContain('You have no active API keys yet.');

    const credentials = createdCredentials(
      await browser.post('/keys', { name: 'capped', scopes: ['read:devices'], rateLimits: '20/1s,50000/1d' }),
    );
    const id = keyIdOf(browser.lastPage!, credentials.key);
    expect(textOf(browser.lastPage!.html)).toContain('Rate limits 20 per second, 50,000 per day');
    const first = await gatewayCall('/api/SubscriptionPlans', credentials);
    expect(keyWindows(first.headers.get('ratelimit-policy'))).toBe('"1s";q=20;w=1, "1d";q=50000;w=86400');

    const changed = await browser.post(`/keys/${id}/edit`, { name: 'capped', scopes: ['read:devices'], rateLimits: '5/1m' });
    expect(changed.redirects).toEqual([`/keys/${id}`]);
    expect(textOf(changed.html)).toContain('rate limits 5 per minute and allowed addresses any address, from its next request.');
    expect(keyWindows((await gatewayCall('/api/SubscriptionPlans', credentials)).headers.get('ratelimit-policy'))).toBe('"1m";q=5;w=60');

    const cleared = await browser.post(`/keys/${id}/edit`, { name: 'capped', scopes: ['read:devices'], rateLimits: '' });
    expect(textOf(cleared.html)).toContain('rate limits deployment default and allowed addresses any address, from its next request.');
    expect(keyWindows((await gatewayCall('/api/SubscriptionPlans', credentials)).headers.get('ratelimit-policy'))).toBeNull(); // no default here

    const foreign = await browser.post('/keys/not-a-key-of-mine/edit', { name: 'x', rateLimits: '1/1s' });
    expect(foreign.status).toBe(404);
  });
});

describe('devices', () => {
  it('lists and registers devices; registering the same serial again updates it', async () => {
    const browser = system.browser();
    await registerUser(browser);
    expect(textOf((await browser.get('/devices')).html)).toContain('No devices are registered to your account yet.');
    const serial = `DASH-${Date.now()}`;
    const registered = await browser.post('/devices', {
      serialNumber: serial,
      name: 'Desk DAC',
      catalogEntryId: '1',
      firmwareVersion: '1.2.0',
    });
    expect(registered.redirects).toEqual(['/devices']);
    const text = textOf(registered.html);
    expect(text).toContain('“Desk DAC” is registered to your account.');
    expect(text).toContain(serial);
    expect(text).toContain('1.2.0');

    const again = await browser.post('/devices', {
      serialNumber: serial,
      name: 'Living room DAC',
      catalogEntryId: '',
      firmwareVersion: '',
    });
    expect(textOf(again.html)).toContain('“Living room DAC” was already registered to your account');
  });

  it('shows 422 for an unknown catalog entry and 400 for a bad id, keeping what was typed', async () => {
    const browser = system.browser();
    await registerUser(browser);
    await browser.get('/devices');
    const unknown = await browser.post('/devices', {
      serialNumber: 'DASH-UNKNOWN-1',
      name: 'Mystery',
      catalogEntryId: '999999999',
      firmwareVersion: '',
    });
    expect(unknown.status).toBe(422);
    // Said once, in the catalog picker where the entry is chosen (no summary repeating it).
    expect(textOf(unknown.html).split('No catalog entry has this id').length - 1).toBe(1);
    expect(unknown.html).toContain('<p class="field-error" id="catalog-error">');
    expect(unknown.html).toContain('value="DASH-UNKNOWN-1"');
    const bad = await browser.post('/devices', { serialNumber: 'DASH-BAD-1', name: 'Bad', catalogEntryId: 'abc', firmwareVersion: '' });
    expect(bad.status).toBe(400);
    expect(textOf(bad.html)).toContain('Choose a catalog entry from the search results, or none.');
    expect(textOf((await browser.get('/devices')).html)).toContain('No devices are registered');
  });
});
