import { beforeAll, describe, expect, it } from '@jest/globals';
import type { Page } from 'playwright-core';
import { registerThroughForm, useBrowserSession } from './browser-session.js';

// Issue 31.3 in a real headless Chromium (no script) on the real system: a key's allowed addresses edited
// under Edit (a textarea, one range per line), a bad range refused beside its field, the gateway refusing
// the key from elsewhere (403 ip_not_allowed) on its next request, and an empty field opening it again.
const session = useBrowserSession();
const cspViolations = session.cspViolations;
let page: Page;
beforeAll(() => {
  page = session.page();
});

let keyPath: string;
let credentials: { key: string; secret: string };
const field = () => page.getByLabel('Allowed addresses', { exact: true });
const saveButton = () => page.getByRole('button', { name: 'Save changes' });
const openEdit = () => page.goto(`${session.system().url}${keyPath}/edit`);
const plans = () => session.system().sut.call('GET', '/api/SubscriptionPlans', credentials);

describe('allowed addresses in the dashboard (no script)', () => {
  it('creates a key open to any address', async () => {
    await registerThroughForm(page, session.system().url, { first: 'Ada', last: 'Lovelace' });
    await page.goto(`${session.system().url}/keys/new`);
    const form = page.locator('form[action="/keys"]');
    await form.getByLabel('Name').fill('office app');
    await form.getByRole('checkbox', { name: /^read:devices\b/ }).check();
    await form.getByRole('button', { name: 'Create key' }).click();
    credentials = { key: await page.locator('#created-key').innerText(), secret: await page.locator('#created-secret').innerText() };
    keyPath = new URL(page.url()).pathname;
    expect(await page.locator('dd.ip-allow-list').innerText()).toBe('any address');
    expect((await plans()).status).toBe(200);
  });

  it('refuses a bad range beside the field, keeping what was typed; nothing changes', async () => {
    await openEdit();
    await field().fill('203.0.113.0/24\n203.0.113.0/33');
    await saveButton().click();
    expect(await field().inputValue()).toBe('203.0.113.0/24\n203.0.113.0/33');
    expect(await field().getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#field-ipAllowList-error').innerText()).toMatch(/^Line 2, “203\.0\.113\.0\/33”/);
    expect((await plans()).status).toBe(200);
  });

  it('saves a list: the page shows it and the gateway refuses the key from elsewhere on its next request', async () => {
    await openEdit();
    await field().fill('203.0.113.0/24\n2001:db8::/32');
    await saveButton().click();
    expect(new URL(page.url()).pathname).toBe(keyPath);
    expect(await page.locator('dd.ip-allow-list').innerText()).toBe('203.0.113.0/24, 2001:db8::/32');
    const refused = await plans();
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ code: 'ip_not_allowed' });
    await openEdit();
    expect(await field().inputValue()).toBe('203.0.113.0/24\n2001:db8::/32');
  });

  it('an empty field opens the key to any address again; no page broke the Content-Security-Policy', async () => {
    await openEdit();
    await field().fill('');
    await saveButton().click();
    expect(await page.locator('dd.ip-allow-list').innerText()).toBe('any address');
    expect((await plans()).status).toBe(200);
    expect(cspViolations).toEqual([]);
  });
});
