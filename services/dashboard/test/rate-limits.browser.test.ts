import { beforeAll, describe, expect, it } from '@jest/globals';
import type { Page } from 'playwright-core';
import { join } from 'node:path';
import { screenshotDir } from './chromium.js';
import { registerThroughForm, useBrowserSession } from './browser-session.js';
import { keyWindows } from './harness.js';

// Issue 16 in a real headless Chromium (no script) on the real system: a key's rate limits set on
// create and changed on its card, a value above the deployment's ceiling refused next to its field,
// and the limit enforced by the gateway (429 after it).
const CEILING = '100/1s,100000/1d';
const session = useBrowserSession({ RATE_LIMIT_CEILING: CEILING });
const cspViolations = session.cspViolations;
let page: Page;
beforeAll(() => {
  page = session.page();
});

const path = () => new URL(page.url()).pathname;
let keyPath: string;
/** The key's Edit page: its limits field and the Save button. */
async function openEdit(): Promise<void> {
  await page.goto(`${session.system().url}${keyPath}/edit`);
}
const saveButton = () => page.getByRole('button', { name: 'Save changes' });
const plans = (credentials: { key: string; secret: string }) => session.system().sut.call('GET', '/api/SubscriptionPlans', credentials);

let credentials: { key: string; secret: string };

describe('rate limits in the dashboard (no script)', () => {
  it('creates a key with its own limits: its page says them in words', async () => {
    await registerThroughForm(page, session.system().url, { first: 'Ada', last: 'Lovelace' });

    await page.goto(`${session.system().url}/keys/new`);
    const form = page.locator('form[action="/keys"]');
    await form.getByLabel('Name').fill('limited app');
    await form.getByRole('checkbox', { name: /^read:devices\b/ }).check();
    await form.getByLabel('Rate limits', { exact: true }).fill('20/1s,50000/1d');
    await form.getByRole('button', { name: 'Create key' }).click();
    credentials = { key: await page.locator('#created-key').innerText(), secret: await page.locator('#created-secret').innerText() };
    keyPath = path();
    expect(await page.locator('dd.rate-limits').innerText()).toBe('20 per second, 50,000 per day');
    const answer = await plans(credentials);
    expect(answer.status).toBe(200);
    expect(keyWindows(answer.headers.get('ratelimit-policy'))).toBe('"1s";q=20;w=1, "1d";q=50000;w=86400');
  });

  it('refuses a limit above the ceiling next to the field, keeping what was typed; nothing changes', async () => {
    await openEdit();
    await page.getByLabel('Rate limits', { exact: true }).fill('500/1s,3/1d');
    await saveButton().click();
    const field = page.getByLabel('Rate limits', { exact: true });
    expect(await field.inputValue()).toBe('500/1s,3/1d');
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    const errorId = (await field.getAttribute('aria-describedby'))!.split(' ').find((id) => id.endsWith('-error'))!;
    expect(await page.locator(`#${errorId}`).innerText()).toBe('500/1s is above the ceiling 100/1s');
    expect(await page.evaluate<string | null>('document.activeElement && document.activeElement.id')).toBe(errorId.replace(/-error$/, ''));
    // Said once: beside the field, not again in a summary.
    expect((await page.locator('main').innerText()).split('500/1s is above the ceiling 100/1s').length - 1).toBe(1);
    await page.goto(`${session.system().url}${keyPath}`);
    expect(await page.locator('dd.rate-limits').innerText()).toBe('20 per second, 50,000 per day');
    await openEdit();
    await page.getByLabel('Rate limits', { exact: true }).fill('500/1s,3/1d');
    await saveButton().click();

    const shots = await screenshotDir();
    await page.screenshot({ path: join(shots, 'key-limits-refused-desktop.png'), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.screenshot({ path: join(shots, 'key-limits-refused-phone.png'), fullPage: true });
      expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBe(390);
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });

  it('changes the limits under Edit; the gateway enforces them on the next requests (429 with Retry-After)', async () => {
    await openEdit();
    await page.getByLabel('Rate limits', { exact: true }).fill('20/1s,3/1d');
    await saveButton().click();
    expect(path()).toBe(keyPath);
    expect(await page.locator('body').innerText()).toContain(
      'rate limits 20 per second, 3 per day and allowed addresses any address, from its next request.',
    );
    expect(await page.locator('dd.rate-limits').innerText()).toBe('20 per second, 3 per day');
    await openEdit();
    expect(await page.getByLabel('Rate limits', { exact: true }).inputValue()).toBe('20/1s,3/1d');

    // The day window's counter is shared by the old and the new list (same length), so the request made
    // earlier may already hold some of the 3: at most 3 are admitted, and the 4th is refused in any case.
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await plans(credentials)).status);
    expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(3);
    expect(statuses.at(-1)).toBe(429);
    const refused = await plans(credentials);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({ error: 'Too many requests' });

    const shots = await screenshotDir();
    await page.screenshot({ path: join(shots, 'key-limits-desktop.png'), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.screenshot({ path: join(shots, 'key-limits-phone.png'), fullPage: true });
      expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBe(390);
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });

  it('an empty field gives the key back to the deployment default; no page broke the Content-Security-Policy', async () => {
    await openEdit();
    await page.getByLabel('Rate limits', { exact: true }).fill('');
    await saveButton().click();
    expect(await page.locator('dd.rate-limits').innerText()).toBe('deployment default');
    expect((await plans(credentials)).status).toBe(200); // no default in this deployment: unlimited again
    expect(cspViolations).toEqual([]);
  });
});
