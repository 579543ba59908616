import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import * as OTPAuth from 'otpauth';
import { launchChromium } from './chromium.js';
import { PASSWORD, startDashboardSystem, uniqueEmail, type DashboardSystem } from './harness.js';

// Issue 32 in a real Chromium: a session ended from another browser context signs the first one out,
// two-factor sign-in is turned on from the QR code page (its otpauth:// URI) and signed in with a code,
// and the account is deleted from its page.
let system: DashboardSystem;
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
  system = await startDashboardSystem();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await system?.stop();
});

const path = (page: Page) => new URL(page.url()).pathname;

async function signInWith(page: Page, email: string): Promise<void> {
  await page.goto(`${system.url}/sign-in`);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

async function register(page: Page): Promise<string> {
  const email = uniqueEmail();
  await page.goto(`${system.url}/register`);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('First name').fill('Ada');
  await page.getByLabel('Last name').fill('Lovelace');
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  expect(path(page)).toBe('/');
  return email;
}

describe('accounts people can trust, in Chromium', () => {
  it('ending the other browser context’s session from the sessions page signs it out on its next page', async () => {
    const first = await (await browser.newContext()).newPage();
    const email = await register(first);
    const second = await (await browser.newContext()).newPage();
    await signInWith(second, email);
    expect(path(second)).toBe('/');

    await second.goto(`${system.url}/account/sessions`);
    await second.getByRole('button', { name: /^End the session of/ }).click();
    expect(await second.locator('main').innerText()).toContain('is ended.');

    await first.goto(`${system.url}/keys`);
    expect(path(first)).toBe('/sign-in');
    expect(await first.locator('main').innerText()).toContain('Your sign-in has ended. Please sign in again.');
  }, 120_000);

  it('turns two-factor sign-in on from the QR code page (its otpauth:// URI, the same key as the text), then signs in with a code', async () => {
    const page = await (await browser.newContext()).newPage();
    const email = await register(page);
    await page.goto(`${system.url}/account/two-factor`);
    await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    // The QR code is drawn (inline SVG, no CSP violation) and carries the page's otpauth:// URI; the key stays readable as text.
    const qr = page.getByRole('img', { name: 'QR code of the key for your authenticator app' });
    expect(await qr.isVisible()).toBe(true);
    expect((await qr.boundingBox())!.width).toBeGreaterThan(100);
    const otpauthUri = await page.locator('dd a[href^="otpauth://"]').getAttribute('href');
    const totp = OTPAuth.URI.parse(otpauthUri!) as OTPAuth.TOTP;
    expect(totp.secret.base32).toBe(await page.locator('#two-factor-secret').innerText());
    expect(totp).toMatchObject({ algorithm: 'SHA1', digits: 6, period: 30, label: email });
    await page.getByLabel('Code', { exact: true }).fill(totp.generate());
    await page.getByRole('button', { name: 'Turn on' }).click();
    expect(await page.locator('#recovery-codes li').count()).toBe(10);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await signInWith(page, email);
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Two-factor sign-in');
    await page.getByLabel('Code').fill(totp.generate({ timestamp: Date.now() + 30_000 }));
    await page.getByRole('button', { name: 'Sign in' }).click();
    expect(path(page)).toBe('/');
    expect(await page.locator('main').innerText()).toContain(email);
  }, 120_000);

  it('deletes the account from its page with the password; the other browser context is signed out on its next page', async () => {
    const first = await (await browser.newContext()).newPage();
    const email = await register(first);
    const second = await (await browser.newContext()).newPage();
    await signInWith(second, email);

    await first.goto(`${system.url}/account/delete`);
    await first.getByLabel('Password').fill(PASSWORD);
    await first.getByRole('button', { name: 'Delete my account' }).click();
    expect(path(first)).toBe('/sign-in');
    expect(await first.locator('main').innerText()).toContain('Your account is deleted.');

    await second.goto(`${system.url}/keys`);
    expect(path(second)).toBe('/sign-in');
    await signInWith(second, email);
    expect(path(second)).toBe('/sign-in');
  }, 120_000);
});
