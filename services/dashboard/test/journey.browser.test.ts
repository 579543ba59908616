import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium, screenshotDir } from './chromium.js';
import { PASSWORD, startDashboardSystem, uniqueEmail, type DashboardSystem } from './harness.js';

// A person's journey through the dashboard in a real headless Chromium (Debian's package, driven by
// playwright-core), on the real system: gateway, services, PostgreSQL and Redis. Steps run in order
// and share one browser context (one user), as a person would use it.
let system: DashboardSystem;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let shots: string;
const cspViolations: string[] = [];
const email = uniqueEmail();

beforeAll(async () => {
  // The browser first: without Chromium the run fails at once with how to install it, before a system is started.
  browser = await launchChromium();
  [system, shots] = await Promise.all([startDashboardSystem(), screenshotDir()]);
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  context.setDefaultTimeout(10_000);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: system.url });
  page = await context.newPage();
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
  });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await system?.stop();
});

/** The page as it is now at desktop width and on a 390 px phone; the phone must not scroll sideways. */
async function picture(name: string): Promise<void> {
  await page.screenshot({ path: join(shots, `${name}-desktop.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    await page.screenshot({ path: join(shots, `${name}-phone.png`), fullPage: true });
    const width = await page.evaluate<number>('document.documentElement.scrollWidth');
    expect({ page: name, width }).toEqual({ page: name, width: 390 });
  } finally {
    await page.setViewportSize({ width: 1280, height: 900 });
  }
}

const navLink = (name: string) => page.getByRole('navigation').getByRole('link', { name, exact: true });
const heading = () => page.getByRole('heading', { level: 1 }).innerText();
const path = () => new URL(page.url()).pathname;
const gateway = (credentials: { key: string; secret: string }) => system.sut.call('GET', '/api/SubscriptionPlans', credentials);

let credentials: { key: string; secret: string };

describe('a visitor who is not signed in', () => {
  it('sees what this site is at /, and a page of the account sends them to sign in, then back there', async () => {
    await page.goto(`${system.url}/`);
    expect(await heading()).toBe('Your audio platform account');
    await expect(page.getByRole('link', { name: 'Create an account' }).first().isVisible()).resolves.toBe(true);
    await picture('landing');

    await page.goto(`${system.url}/devices`);
    expect(path()).toBe('/sign-in');
    expect(new URL(page.url()).searchParams.get('next')).toBe('/devices');
    expect(await page.getByRole('status').first().innerText()).toContain('Please sign in to see that page.');
    await picture('sign-in');
  });
});

describe('register, keys, subscriptions, devices, sign out', () => {
  it('registration refuses a weak password next to the field, focused, then creates the account and signs in', async () => {
    await page.goto(`${system.url}/register`);
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('First name').fill('Ada');
    await page.getByLabel('Last name').fill('Lovelace');
    await page.getByLabel('Password').fill('aaaaaaaaaaaaaaaa'); // long enough for the browser, repetitive for identity
    await page.getByRole('button', { name: 'Create account' }).click();
    expect(await heading()).toBe('Create an account');
    const password = page.getByLabel('Password');
    expect(await password.getAttribute('aria-invalid')).toBe('true');
    const describedBy = (await password.getAttribute('aria-describedby')) ?? '';
    expect(describedBy).toContain('field-password-error');
    expect(await page.locator('#field-password-error').innerText()).not.toBe('');
    expect(await page.evaluate<string | null>("document.activeElement && document.activeElement.getAttribute('name')")).toBe('password');
    expect(await page.getByLabel('E-mail').inputValue()).toBe(email); // what was typed stays, except the password
    expect(await password.inputValue()).toBe('');
    await picture('register-refused');

    await password.fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    expect(path()).toBe('/');
    expect(await page.getByRole('status').first().innerText()).toContain('Welcome! Your account is ready.');
    expect(await page.locator('main').innerText()).toContain(email);
    expect(await navLink('Overview').getAttribute('aria-current')).toBe('page');
    await picture('overview');
  }, 60_000);

  it('creates a key: the secret is shown once with copy buttons and a snippet, the copy works, the key works at the gateway, and a reload shows it no more', async () => {
    await navLink('API keys').click();
    expect(await navLink('API keys').getAttribute('aria-current')).toBe('page');
    await page.getByRole('link', { name: 'Create key' }).click();
    const form = page.locator('form[action="/keys"]');
    await form.getByLabel('Name').fill('studio app');
    await form.getByRole('checkbox', { name: /^read:devices\b/ }).check();
    await form.getByRole('button', { name: 'Create key' }).click();
    expect(path()).toMatch(/^\/keys\/[0-9a-f-]{36}$/); // the new key's own page
    const key = await page.locator('#created-key').innerText();
    const secret = await page.locator('#created-secret').innerText();
    credentials = { key, secret };
    expect(key).toMatch(/^acs_live_[A-Za-z0-9]+$/);
    expect(await page.locator('#created-curl').innerText()).toContain(`X-Api-Secret: ${secret}`);

    // The page's one script (allowed by its hash) shows the copy buttons and copies.
    const copySecret = page.getByRole('button', { name: 'Copy secret' });
    expect(await copySecret.isVisible()).toBe(true);
    await copySecret.click();
    await page.locator('#created-secret-status').filter({ hasText: 'Copied.' }).waitFor();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(secret);
    await picture('key-created');

    expect((await gateway(credentials)).status).toBe(200);
    await page.reload();
    expect(await page.locator('#created-secret').count()).toBe(0);
    expect(await page.content()).not.toContain(secret);
    expect(await page.locator('main').innerText()).toContain(key);
  }, 60_000);

  it("changes the key's scopes under Edit; the gateway applies them at the next request", async () => {
    await page.getByRole('link', { name: 'Edit' }).click();
    await page.getByRole('checkbox', { name: /^read:devices\b/ }).uncheck();
    await page.getByRole('checkbox', { name: /^auth:login\b/ }).check();
    await page.getByRole('button', { name: 'Save changes' }).click();
    expect(await page.getByRole('status').first().innerText()).toContain('now has scopes auth:login');
    expect((await gateway(credentials)).status).toBe(403);
    await navLink('API keys').click();
    await picture('keys');
    await page.getByRole('link', { name: 'studio app' }).click();
  });

  it('revoking asks first, says what will happen, and then the gateway refuses the key', async () => {
    await page.getByRole('link', { name: 'Revoke…' }).click();
    expect(await heading()).toBe('Revoke this key?');
    const text = await page.locator('main').innerText();
    expect(text).toContain(`Revoke key “studio app” (${credentials.key})? Apps using it stop working at once`);
    expect((await gateway(credentials)).status).toBe(403); // not yet: asking changed nothing
    await picture('key-revoke-confirm');

    await page.getByRole('button', { name: 'Revoke key “studio app”' }).click();
    expect(path()).toBe('/keys');
    expect(await page.getByRole('status').first().innerText()).toContain('is revoked');
    expect((await gateway(credentials)).status).toBe(401);
    expect(await page.locator('details.revoked-keys').innerText()).toContain('Revoked keys (1)');
    expect(await page.locator('table.keys').count()).toBe(1); // only the folded table of revoked keys
  });

  it('subscribing asks first with the price; canceling asks first, keeps the plan to the period end and offers no second subscription to it', async () => {
    await navLink('Subscriptions').click();
    await picture('subscriptions');
    await page.getByRole('link', { name: 'Subscribe to Monthly…' }).click();
    expect(await heading()).toBe('Subscribe to Monthly?');
    expect(await page.locator('main').innerText()).toMatch(/for \d+\.\d\d [A-Z]{3} per month/);
    await picture('subscribe-confirm');
    await page.getByRole('button', { name: /^Subscribe to Monthly \(/ }).click();
    expect(path()).toBe('/subscriptions');
    expect(await page.getByRole('status').first().innerText()).toMatch(/Your subscription is active until/);
    expect(await page.locator('main').innerText()).toContain('your current plan');

    await page.getByRole('link', { name: 'Cancel the Monthly subscription…' }).click();
    expect(await heading()).toBe('Cancel your Monthly subscription?');
    expect(await page.locator('main').innerText()).toMatch(/stays active until \d{4}-\d{2}-\d{2}/);
    await picture('cancel-confirm');
    await page.getByRole('button', { name: 'Cancel the Monthly subscription' }).click();
    expect(await page.getByRole('status').first().innerText()).toMatch(/canceled\. It stays active until/);
    const main = await page.locator('main').innerText();
    expect(main).toMatch(/canceled, active until/);
    expect(await page.getByRole('link', { name: /Monthly…$/ }).count()).toBe(0); // no "Switch to Monthly" for the plan still running
    expect(main).not.toMatch(/cancell/i); // one spelling
    await picture('subscriptions-canceled');
  }, 60_000);

  it('registers a device; an empty catalog cell shows a dash', async () => {
    await navLink('Devices').click();
    await page.getByLabel('Serial number').fill('SN-BROWSER-0001');
    await page.getByLabel('Name', { exact: true }).fill('Living room amp');
    await page.getByRole('button', { name: 'Register device' }).click();
    expect(await page.getByRole('status').first().innerText()).toContain('“Living room amp” is registered to your account.');
    const row = page.locator('tr', { hasText: 'SN-BROWSER-0001' });
    expect(await row.locator('td[data-label="Catalog entry"]').innerText()).toBe('—');
    await picture('devices');
  });

  it('signs out; a wrong password is said next to the field; signing in returns to the page asked for', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    expect(path()).toBe('/sign-in');
    expect(await page.getByRole('status').first().innerText()).toContain('You are signed out.');
    await page.goto(`${system.url}/keys`);
    expect(path()).toBe('/sign-in');

    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill('not-the-password-at-all');
    await page.getByRole('button', { name: 'Sign in' }).click();
    expect(await page.locator('#field-password-error').innerText()).toBe('The e-mail or password is incorrect.');
    expect(await page.getByLabel('Password').getAttribute('aria-invalid')).toBe('true');
    expect(await page.content()).not.toContain('not-the-password-at-all');
    await picture('sign-in-refused');

    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    expect(path()).toBe('/keys');
    expect(await heading()).toBe('API keys');
  });

  it('no page broke the Content-Security-Policy', () => {
    expect(cspViolations).toEqual([]);
  });
});
