import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { registerThroughForm } from './browser-session.js';
import { launchChromium } from './chromium.js';
import { PASSWORD, startDashboardSystem, uniqueEmail, type DashboardSystem } from './harness.js';

// What a real Chromium must be refused, and what must work without script.
let system: DashboardSystem;
let browser: Browser;
let attacker: Server;
let attackerPort: number;

/**
 * Another site: a page that posts a form to the dashboard as soon as it loads (the classic CSRF).
 * The target path and fields come in the query, so one server serves every attempt.
 */
function startAttacker(): Promise<Server> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://attacker.invalid');
    const target = url.searchParams.get('target') ?? '';
    const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    if (url.pathname === '/link')
      return void res.end(`<!doctype html><title>A forum</title><p><a href="${escapeHtml(target)}">our audio platform account</a></p>`);
    res.end(`<!doctype html><title>Win a prize</title><body onload="document.forms[0].submit()">
<form method="post" action="${escapeHtml(target)}"><input type="hidden" name="name" value="planted by another site"><input type="hidden" name="scopes" value="read:devices"></form></body>`);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

beforeAll(async () => {
  browser = await launchChromium(); // first: without it, fail at once with how to install it
  [system, attacker] = await Promise.all([startDashboardSystem(), startAttacker()]);
  attackerPort = (attacker.address() as AddressInfo).port;
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => attacker?.close(resolve));
  await system?.stop();
});

async function registerIn(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  await registerThroughForm(page, system.url);
  return page;
}

async function createKey(page: Page, name: string): Promise<{ key: string; secret: string; id: string }> {
  await page.goto(`${system.url}/keys/new`);
  const form = page.locator('form[action="/keys"]');
  await form.getByLabel('Name').fill(name);
  await form.getByRole('checkbox', { name: /^read:devices\b/ }).check();
  await form.getByRole('button', { name: 'Create key' }).click();
  const key = await page.locator('#created-key').innerText();
  const secret = await page.locator('#created-secret').innerText();
  const id = /^\/keys\/([0-9a-f-]{36})$/.exec(new URL(page.url()).pathname)?.[1]; // the new key's own page
  return { key, secret, id: id! };
}

const keyWorks = async (credentials: { key: string; secret: string }) =>
  (await system.sut.call('GET', '/api/SubscriptionPlans', credentials)).status === 200;

describe('a form posted from another site', () => {
  it.each([
    ['cross-site (another host)', 'localhost'],
    ['same-site (another port of the same host)', '127.0.0.1'],
  ])(
    '%s: an auto-submitted revoke or create is refused and changes nothing',
    async (_what, attackerHost) => {
      const context = await browser.newContext();
      context.setDefaultTimeout(10_000);
      try {
        const page = await registerIn(context);
        const victim = await createKey(page, 'victim key');
        await page.goto(`${system.url}/keys`);
        const keysBefore = await page.locator('table.keys tbody tr').count();

        for (const target of [`${system.url}/keys/${victim.id}/revoke`, `${system.url}/keys`]) {
          const lure = await context.newPage();
          const answered = lure.waitForResponse((res) => res.url() === target && res.request().method() === 'POST');
          await lure.goto(`http://${attackerHost}:${attackerPort}/?target=${encodeURIComponent(target)}`);
          const response = await answered;
          expect(response.status()).toBe(403);
          await lure.waitForURL(target);
          expect(await lure.locator('main').innerText()).toContain(
            'This form was sent from another site, so it was refused. Nothing was changed.',
          );
          await lure.close();
        }

        expect(await keyWorks(victim)).toBe(true);
        await page.goto(`${system.url}/keys`);
        expect(await page.locator('table.keys tbody tr').count()).toBe(keysBefore);
        expect(await page.locator('main').innerText()).not.toContain('planted by another site');
      } finally {
        await context.close();
      }
    },
    60_000,
  );
});

describe('a link from another site', () => {
  it('keeps a signed-in visitor signed in, and gives a new visitor a session their forms work with', async () => {
    const context = await browser.newContext();
    context.setDefaultTimeout(10_000);
    try {
      const page = await registerIn(context);
      await page.goto(`http://localhost:${attackerPort}/link?target=${encodeURIComponent(`${system.url}/devices`)}`);
      await page.getByRole('link', { name: 'our audio platform account' }).click();
      await page.waitForURL(`${system.url}/devices`);
      await page.getByRole('heading', { level: 1, name: 'Devices' }).waitFor();
    } finally {
      await context.close();
    }

    const fresh = await browser.newContext();
    fresh.setDefaultTimeout(10_000);
    try {
      const page = await fresh.newPage();
      await page.goto(`http://localhost:${attackerPort}/link?target=${encodeURIComponent(`${system.url}/register`)}`);
      await page.getByRole('link', { name: 'our audio platform account' }).click();
      await page.getByRole('heading', { level: 1, name: 'Create an account' }).waitFor();
      await page.getByLabel('E-mail').fill(uniqueEmail());
      await page.getByLabel('First name').fill('Alan');
      await page.getByLabel('Last name').fill('Turing');
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Create account' }).click();
      expect(await page.getByRole('status').first().innerText()).toContain('Welcome! Your account is ready.');
    } finally {
      await fresh.close();
    }
  }, 60_000);
});

describe('without script', () => {
  it('everything still works: the secret is shown as text, copy buttons stay hidden, revoke asks and revokes', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    context.setDefaultTimeout(10_000);
    try {
      const page = await registerIn(context);
      const created = await createKey(page, 'no-script key');
      expect(created.secret.length).toBeGreaterThan(20);
      expect(await page.getByRole('button', { name: 'Copy secret' }).count()).toBe(0); // hidden: not in the accessibility tree
      expect(await page.locator('button[data-copy]').first().isHidden()).toBe(true);
      expect(await keyWorks(created)).toBe(true);

      await page.getByRole('link', { name: 'Revoke…' }).click();
      await page.getByRole('button', { name: 'Revoke key “no-script key”' }).click();
      expect(await page.getByRole('status').first().innerText()).toContain('is revoked');
      expect(await keyWorks(created)).toBe(false);
    } finally {
      await context.close();
    }
  }, 60_000);
});
