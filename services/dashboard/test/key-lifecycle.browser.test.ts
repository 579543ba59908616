import { beforeAll, describe, expect, it } from '@jest/globals';
import type { Page } from 'playwright-core';
import { join } from 'node:path';
import { screenshotDir } from './chromium.js';
import { registerThroughForm, useBrowserSession } from './browser-session.js';

// Issue 17 in a real headless Chromium on the real system: a key with an expiry, rolling its secret
// (confirmation, the new secret once, the old one's end), and its usage chart (server-rendered SVG).
const FLUSH_MS = 200;
const session = useBrowserSession({ KEY_USAGE_FLUSH_MS: String(FLUSH_MS) });
const cspViolations = session.cspViolations;
let page: Page;
beforeAll(() => {
  page = session.page();
});

const heading = () => page.getByRole('heading', { level: 1 }).innerText();
const path = () => new URL(page.url()).pathname;
/** The key's own page, reached from the list by its name. */
async function openKey(name: string) {
  await page.goto(`${session.system().url}/keys`);
  await page.getByRole('link', { name, exact: true }).click();
  return page.locator('main');
}
const keyPagePath = /^\/keys\/[0-9a-f-]{36}$/;
const plans = (credentials: { key: string; secret: string }) => session.system().sut.call('GET', '/api/SubscriptionPlans', credentials);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let credentials: { key: string; secret: string };
let rolledSecret: string;

describe('key lifecycle in the dashboard (no script)', () => {
  it('registers and creates a key that expires in 7 days: its page warns that it expires soon', async () => {
    await registerThroughForm(page, session.system().url, { first: 'Grace', last: 'Hopper' });

    await page.goto(`${session.system().url}/keys/new`);
    const form = page.locator('form[action="/keys"]');
    await form.getByLabel('Name').fill('expiring app');
    await form.getByRole('checkbox', { name: /^read:devices\b/ }).check();
    await form.getByLabel('Expires').selectOption({ label: 'in 7 days' });
    await form.getByRole('button', { name: 'Create key' }).click();
    credentials = { key: await page.locator('#created-key').innerText(), secret: await page.locator('#created-secret').innerText() };
    expect((await plans(credentials)).status).toBe(200);
    expect(path()).toMatch(keyPagePath);
    const card = page.locator('main');
    expect(await card.locator('.expiry-warning').innerText()).toMatch(/expires in 7 days$/);
    // No traffic recorded yet: a chart of 30 empty days.
    expect(await card.locator('figure.usage figcaption').innerText()).toContain('last 30 days');
  }, 90_000); // registering through the form and a first page render take long on a busy machine

  it('rolling asks first with the grace choices, shows the new secret once and when the old one stops; both work meanwhile', async () => {
    await page.getByRole('link', { name: 'Roll secret…' }).click();
    expect(await heading()).toBe('Roll the secret of this key?');
    expect(await page.getByRole('radio', { name: '1 day' }).isChecked()).toBe(true);
    expect((await plans(credentials)).status).toBe(200); // asking changed nothing
    await page.getByRole('radio', { name: '1 hour' }).check();
    await page.getByRole('button', { name: 'Roll the secret of “expiring app”' }).click();
    expect(path()).toMatch(keyPagePath);
    rolledSecret = await page.locator('#rolled-secret').innerText();
    expect(rolledSecret).not.toBe(credentials.secret);
    expect(await page.locator('#rolled-key').innerText()).toBe(credentials.key);
    const oldEnds = await page.locator('#rolled-old').innerText();
    expect(oldEnds).toMatch(/^works until \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC, then stops$/);
    expect(await page.locator('main').innerText()).toMatch(/Old secret\s+works until/);
    expect((await plans(credentials)).status).toBe(200);
    expect((await plans({ key: credentials.key, secret: rolledSecret })).status).toBe(200);
    await page.reload();
    expect(await page.locator('#rolled-secret').count()).toBe(0);
    expect(await page.content()).not.toContain(rolledSecret);
  });

  it('rolling again with no grace stops the old secret at once', async () => {
    await page.getByRole('link', { name: 'Roll secret…' }).click();
    await page.getByRole('radio', { name: /^none/ }).check();
    await page.getByRole('button', { name: /^Roll the secret of/ }).click();
    expect(await page.locator('#rolled-old').innerText()).toBe('stopped working at once');
    const newest = await page.locator('#rolled-secret').innerText();
    expect((await plans({ key: credentials.key, secret: rolledSecret })).status).toBe(401);
    expect((await plans(credentials)).status).toBe(401);
    credentials = { key: credentials.key, secret: newest };
    expect((await plans(credentials)).status).toBe(200);
  });

  it("shows the key's traffic as a stacked SVG chart once the gateway has flushed its counts", async () => {
    for (let i = 0; i < 4; i++) expect((await plans(credentials)).status).toBe(200);
    const refused = await session.system().sut.call('GET', '/api/Devices', credentials); // read:devices does not grant it: 403 counts as 4xx
    expect(refused.status).toBe(403);
    await sleep(FLUSH_MS * 4);
    await page.reload();
    const figure = page.locator('main figure.usage');
    // 5 earlier successes (after creating; before, and with both secrets after, the first roll; the newest secret) + 4 now, and the 403.
    const caption = await figure.locator('figcaption').innerText();
    expect(caption).toMatch(/Requests, last 30 days \(UTC\): 10, peak 10 a day/);
    const svg = figure.locator('svg[role="img"]');
    expect(await svg.getAttribute('aria-label')).toContain('10 in all');
    const today = new Date().toISOString().slice(0, 10);
    expect(await svg.locator('g.day title').last().textContent()).toBe(`${today}: 10 requests (2xx: 9, 3xx: 0, 4xx: 1, 429: 0, 5xx: 0)`);
    expect(await svg.locator('g.day').count()).toBe(30);
    expect(await svg.locator('g.day').last().locator('rect[fill="#2e7d32"]').count()).toBe(1);
    expect(await svg.locator('g.day').last().locator('rect[fill="#ef6c00"]').count()).toBe(1);
    expect(await figure.locator('script').count()).toBe(0); // drawn by the server: this browser runs no script at all
    const shots = await screenshotDir();
    await page.screenshot({ path: join(shots, 'key-usage-desktop.png'), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.screenshot({ path: join(shots, 'key-usage-phone.png'), fullPage: true });
      expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBe(390);
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });

  it('creates a key that expires on a date typed into the date field: its page shows the end of that day (UTC)', async () => {
    const day = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
    await page.goto(`${session.system().url}/keys/new`);
    const form = page.locator('form[action="/keys"]');
    await form.getByLabel('Name').fill('dated app');
    await form.getByRole('checkbox', { name: /^read:devices\b/ }).check();
    await form.getByLabel('Expires').selectOption({ label: 'on the date below' });
    await form.getByLabel('Expiry date').fill(day);
    await form.getByRole('button', { name: 'Create key' }).click();
    const endOfDay = new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    expect(await page.locator('main .expiry-warning').innerText()).toContain(`${endOfDay} 00:00 UTC`);
    expect(await page.locator('#created-key').count()).toBe(1);
  });

  it('revokes the key and signs out; no page broke the Content-Security-Policy', async () => {
    await (await openKey('expiring app')).getByRole('link', { name: 'Revoke…' }).click();
    await page.getByRole('button', { name: 'Revoke key “expiring app”' }).click();
    expect((await plans(credentials)).status).toBe(401);
    expect(await page.locator('details.revoked-keys').textContent()).toContain('expiring app');
    await page.goto(`${session.system().url}${await page.locator('details.revoked-keys a').first().getAttribute('href')}`);
    expect(await page.getByRole('link', { name: /Roll|Revoke|Edit/ }).count()).toBe(0);
    await page.getByRole('button', { name: 'Sign out' }).click();
    expect(path()).toBe('/sign-in');
    expect(cspViolations).toEqual([]);
  });
});
