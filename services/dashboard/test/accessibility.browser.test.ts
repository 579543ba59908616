import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { setUserRole } from '@acs/identity-service';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { appKey, bearer, json, newUser } from '@acs/test-support';
import { launchChromium } from './chromium.js';
import { PASSWORD, startDashboardSystem, uniqueEmail, type DashboardSystem } from './harness.js';
import { DESKTOP, PHONE, auditPage, reportFigures, type PageFigures } from './page-audit.js';

// Every page of the dashboard, signed out and signed in, in Debian's Chromium on the real system:
// axe-core (a tool nobody here wrote) finds no serious or critical violation at 1280 and 390 px,
// nothing scrolls sideways on a phone, and a screenshot of each is saved. Then what axe cannot
// judge: keyboard alone, 200% zoom, dark mode, one message per error, the keys page's height.
let system: DashboardSystem;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const figures: PageFigures[] = [];
const cspViolations: string[] = [];
const brand = `Brand${randomBytes(3).toString('hex')}`;
const email = uniqueEmail();

/** Three catalog entries of one new brand, imported by an Admin through the gateway, for the picker. */
async function seedCatalog(): Promise<void> {
  const sut = system.sut;
  const app = await appKey(sut, ['auth:register', 'auth:login']);
  const writer = await appKey(sut, ['write:devices']);
  const admin = await newUser(sut, app);
  await setUserRole(sut.system.identity.deps, admin.email, 2);
  const { token } = await admin.login();
  const speaker = (model: string) => ({
    type: 'speaker',
    brand,
    model,
    price: 499,
    releaseYear: 2024,
    specs: { sensitivityDb: 87, impedanceOhms: 8, frequencyLowHz: 45, frequencyHighHz: 25000, design: 'bookshelf' },
  });
  const res = await sut.call(
    'POST',
    '/api/Dac/import',
    writer,
    bearer(token, json([speaker('Aria 1'), speaker('Aria 2'), speaker('Bolero')])),
  );
  expect(res.status).toBe(200);
}

beforeAll(async () => {
  browser = await launchChromium();
  system = await startDashboardSystem();
  await seedCatalog();
  context = await browser.newContext({ viewport: DESKTOP });
  context.setDefaultTimeout(10_000);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: system.url });
  page = await context.newPage();
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
  });
}, 120_000);
afterAll(async () => {
  if (figures.length > 0) await reportFigures('dashboard-pages.json', figures);
  await browser?.close();
  await system?.stop();
});

const open = async (path: string) => {
  await page.goto(`${system.url}${path}`);
};
const path = () => new URL(page.url()).pathname;
const heading = () => page.getByRole('heading', { level: 1 }).innerText();

async function createKey(name: string, scopes: string[]): Promise<string> {
  await open('/keys/new');
  await page.getByLabel('Name').fill(name);
  for (const scope of scopes) await page.getByRole('checkbox', { name: new RegExp(`^${scope}\\b`) }).check();
  await page.getByRole('button', { name: 'Create key' }).click();
  expect(path()).toMatch(/^\/keys\/[0-9a-f-]{36}$/);
  return path();
}

describe('signed out', () => {
  it('the landing page, sign-in, registration and the 404 page pass axe at 1280 and 390 px', async () => {
    await open('/');
    await auditPage(page, 'landing', figures);
    await open('/sign-in');
    await auditPage(page, 'sign-in', figures);
    await open('/register');
    await auditPage(page, 'register', figures);
    await open('/no-such-page');
    expect(await heading()).toBe('Page not found');
    await auditPage(page, 'not-found', figures);
  }, 240_000);

  it('the password reset pages and the dev mailbox pass axe (issue 32)', async () => {
    await open('/forgot-password');
    await auditPage(page, 'forgot-password', figures);
    await open('/reset-password?token=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
    expect(await heading()).toBe('Choose a new password');
    await auditPage(page, 'reset-password', figures);
    await open('/verify-email?token=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
    expect(await heading()).toBe('Verify your e-mail address');
    await auditPage(page, 'verify-email', figures);
    await open('/dev/mailbox');
    expect(await heading()).toBe('Dev mailbox');
    await auditPage(page, 'dev-mailbox', figures);
  }, 240_000);

  it('a wrong password is said once, beside the password field, which has the focus', async () => {
    await open('/sign-in');
    await page.getByLabel('E-mail').fill('nobody@example.com');
    await page.getByLabel('Password').fill('not-the-password-at-all');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const main = await page.locator('main').innerText();
    expect(main.split('The e-mail or password is incorrect.').length - 1).toBe(1);
    expect(await page.locator('#field-password-error').innerText()).toBe('The e-mail or password is incorrect.');
    expect(await page.evaluate<string | null>("document.activeElement && document.activeElement.getAttribute('name')")).toBe('password');
    await auditPage(page, 'sign-in-refused', figures);
  }, 120_000);
});

describe('signed in', () => {
  let keyPath: string;

  it('registers; the overview says what the user can do now and why', async () => {
    await open('/register');
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('First name').fill('Ada');
    await page.getByLabel('Last name').fill('Lovelace');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    expect(path()).toBe('/');
    const main = await page.locator('main').innerText();
    expect(main).toContain('You can create and use API keys');
    expect(main).toMatch(/Because your trial runs until \d{4}-\d{2}-\d{2}/);
    expect(main).toContain('You can register devices');
    expect(main).toContain('0 active keys');
    await auditPage(page, 'overview', figures, { phoneAxe: true });
    await open('/account/password');
    expect(await heading()).toBe('Change your password');
    await auditPage(page, 'change-password', figures);
    await open('/account/sessions');
    expect(await heading()).toBe('Where you are signed in');
    await auditPage(page, 'sessions', figures, { phoneAxe: true });
    await open('/webhooks');
    expect(await heading()).toBe('Webhooks');
    await page.getByLabel('URL', { exact: true }).fill('http://127.0.0.1:9/hook');
    await page.getByRole('checkbox', { name: 'api_key.created' }).check();
    await page.getByRole('button', { name: 'Add the endpoint' }).click();
    expect(await page.locator('#webhook-secret').innerText()).toMatch(/^whsec_/);
    await auditPage(page, 'webhooks', figures, { phoneAxe: true });
    await open('/account/two-factor');
    await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    expect(await page.locator('#two-factor-secret').innerText()).toMatch(/^[A-Z2-7]{32}$/);
    await auditPage(page, 'two-factor-enroll', figures);
  }, 120_000);

  it('creates three keys; the key page shows the secret once, a working copy button and a curl line the key may call', async () => {
    await open('/keys');
    await auditPage(page, 'keys-empty', figures);
    await page.getByRole('link', { name: 'Create key' }).click();
    expect(path()).toBe('/keys/new');
    await auditPage(page, 'key-create', figures);

    keyPath = await createKey('studio app', ['read:devices']);
    const key = await page.locator('#created-key').innerText();
    const secret = await page.locator('#created-secret').innerText();
    await page.getByRole('button', { name: 'Copy secret' }).click();
    await page.locator('#created-secret-status').filter({ hasText: 'Copied.' }).waitFor();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(secret);
    const curl = await page.locator('#created-curl').innerText();
    expect(curl).toContain('/api/Dac?pageSize=5');
    // The line works as shown: the same call with the new key answers 200.
    expect((await system.sut.call('GET', '/api/Dac?pageSize=5', { key, secret })).status).toBe(200);
    await auditPage(page, 'key-created', figures);

    await createKey('login app', ['auth:login']);
    expect(await page.locator('#created-curl').innerText()).toContain('/api/Users/Login');
    await createKey('device app', ['register:device']);
    expect(await page.locator('#created-curl').innerText()).toContain('/api/Devices/Register');
  }, 240_000);

  it('the keys page lists three keys first, at most 2,000 px tall on a 390 px phone', async () => {
    await open('/keys');
    const rows = page.locator('table.keys tbody tr');
    expect(await rows.count()).toBe(3);
    expect(await page.locator('form[action="/keys"]').count()).toBe(0); // creating is its own page
    const figure = await auditPage(page, 'keys-three', figures, { phoneAxe: true });
    process.stdout.write(`keys page with three keys: ${figure.phoneHeight} px tall at 390 px, ${figure.desktopHeight} px at 1280 px\n`);
    expect(figure.phoneHeight).toBeLessThanOrEqual(2000);
  }, 120_000);

  it('the key page, its Edit page and both confirmations pass axe; Edit saves scopes and limits', async () => {
    await open(keyPath);
    expect(await heading()).toBe('Key “studio app”');
    expect(await page.locator('figure.usage svg[role="img"]').count()).toBe(1);
    await auditPage(page, 'key-page', figures, { phoneAxe: true });
    await page.getByRole('link', { name: 'Edit' }).click();
    await auditPage(page, 'key-edit', figures);
    await page.getByRole('checkbox', { name: /^auth:login\b/ }).check();
    await page.getByLabel('Rate limits').fill('lots per second');
    await page.getByRole('button', { name: 'Save changes' }).click();
    // Refused: said once, beside the field (no summary repeating it), what was typed kept, focused there.
    const message = await page.locator('#field-rateLimits-error').innerText();
    expect((await page.locator('main').innerText()).split(message).length - 1).toBe(1);
    expect(await page.getByLabel('Rate limits').inputValue()).toBe('lots per second');
    expect(await page.evaluate<string | null>('document.activeElement && document.activeElement.id')).toBe('field-rateLimits');
    await auditPage(page, 'key-edit-refused', figures);
    await page.getByLabel('Rate limits').fill('20/1s');
    await page.getByRole('button', { name: 'Save changes' }).click();
    expect(path()).toBe(keyPath);
    expect(await page.getByRole('status').first().innerText()).toContain('auth:login read:devices');
    expect(await page.locator('dd.rate-limits').innerText()).toBe('20 per second');

    await page.getByRole('link', { name: 'Roll secret…' }).click();
    expect(await page.locator('main').innerText()).toContain('Until the grace period ends, apps may use either secret');
    await auditPage(page, 'key-roll-confirm', figures);
    await open(`${keyPath}/revoke`);
    expect(await page.locator('main').innerText()).toContain('its very next request is refused');
    await auditPage(page, 'key-revoke-confirm', figures);
    await page.getByRole('button', { name: 'Revoke key “studio app”' }).click();
    expect(path()).toBe('/keys');
    const revoked = page.locator('details.revoked-keys');
    expect(await revoked.getAttribute('open')).toBeNull(); // folded away
    expect(await revoked.locator('summary').innerText()).toBe('Revoked keys (1)');
    await auditPage(page, 'keys-with-revoked', figures);
  }, 240_000);

  it('subscriptions compare the plans; subscribing and canceling ask first', async () => {
    await open('/subscriptions');
    const compare = page.locator('table.compare');
    expect(await compare.locator('tbody th[scope="row"]').allInnerTexts()).toEqual([
      'Price',
      'API keys',
      'Requests',
      'Renewal',
      'Canceling',
      'Choose',
    ]);
    await auditPage(page, 'subscriptions', figures);
    await page.getByRole('link', { name: 'Subscribe to Monthly…' }).click();
    await auditPage(page, 'subscribe-confirm', figures);
    await page.getByRole('button', { name: /^Subscribe to Monthly \(/ }).click();
    await page.getByRole('link', { name: 'Cancel the Monthly subscription…' }).click();
    await auditPage(page, 'cancel-confirm', figures);
    await open('/');
    expect(await page.locator('main').innerText()).toMatch(/Because your Monthly subscription is active until/);
    await auditPage(page, 'overview-subscribed', figures);
  }, 240_000);

  it('devices: the catalog picker searches as the user types, and the chosen entry is registered', async () => {
    await open('/devices');
    await auditPage(page, 'devices', figures);
    await open(`/devices?q=${brand}`); // the results as the page itself renders them (the no-script search)
    expect(await page.locator('#catalog-status').innerText()).toBe(`3 entries match “${brand}”.`);
    await auditPage(page, 'devices-results', figures);
    await open('/devices');
    await page.getByLabel('Serial number').fill('SN-A11Y-0001');
    await page.getByLabel('Name', { exact: true }).fill('Study speakers');
    await page.getByLabel('Search the catalog').pressSequentially(`${brand} ari`, { delay: 20 });
    await page.locator('#catalog-status').filter({ hasText: '2 entries match' }).waitFor();
    await page.getByRole('radio', { name: new RegExp(`^${brand} Aria 2`) }).check();
    expect(path()).toBe('/devices'); // no page load: the script searched
    await auditPage(page, 'devices-search', figures);
    await page.getByRole('button', { name: 'Register device' }).click();
    expect(await page.getByRole('status').first().innerText()).toContain('“Study speakers” is registered');
    expect(await page.locator('tr', { hasText: 'SN-A11Y-0001' }).locator('td[data-label="Catalog entry"]').innerText()).toBe(
      `${brand} Aria 2`,
    );
  }, 240_000);

  it('the Activity page (issue 30) lists the changes in words, filters by kind, and passes axe', async () => {
    await open('/activity');
    expect(await heading()).toBe('Activity');
    // Keys' and billing's entries come through the bus: the page is loaded again until they are there.
    for (let i = 0; i < 50 && !(await page.locator('main').innerText()).includes('API key “studio app” revoked'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      await open('/activity');
    }
    const main = await page.locator('main').innerText();
    expect(main).toContain('API key “studio app” revoked');
    expect(main).toContain('Account created');
    expect(main).toMatch(/Signed in from /);
    await auditPage(page, 'activity', figures, { phoneAxe: true });
    await page.getByLabel('Kind').selectOption('session');
    await page.getByRole('button', { name: 'Show' }).click();
    expect(new URL(page.url()).searchParams.get('family')).toBe('session');
    const activities = await page.locator('td[data-label="Activity"]').allInnerTexts();
    expect(activities.length).toBeGreaterThan(0);
    expect(activities.every((text) => /^(Signed in from|Signed out|Session ended)/.test(text))).toBe(true);
    await auditPage(page, 'activity-filtered', figures);
  }, 240_000);

  it('keyboard alone: skip link, then Tab to "Create key", a name, a scope and the button; focus always visible', async () => {
    await open('/keys');
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string>('document.activeElement.textContent')).toBe('Skip to content');
    const tabTo = async (matches: string): Promise<void> => {
      for (let i = 0; i < 40; i++) {
        await page.keyboard.press('Tab');
        if (await page.evaluate<boolean>(`document.activeElement.matches(${JSON.stringify(matches)})`)) {
          // A visible focus indicator: our 3 px outline.
          expect(await page.evaluate<string>('getComputedStyle(document.activeElement).outlineStyle')).not.toBe('none');
          return;
        }
      }
      throw new Error(`Tab never reached ${matches}`);
    };
    await tabTo('a[href="/keys/new"]');
    await page.keyboard.press('Enter');
    await page.waitForURL('**/keys/new');
    await tabTo('input[name="name"]');
    await page.keyboard.type('keyboard app');
    await tabTo('input[value="read:devices"]');
    await page.keyboard.press('Space');
    await tabTo('button[type="submit"]:not(.link)');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/keys\/[0-9a-f-]{36}$/);
    expect(await page.locator('#created-title').innerText()).toBe('Key “keyboard app” created');
  }, 120_000);

  it('at 200% zoom (640 CSS px) nothing scrolls sideways; dark mode passes axe too', async () => {
    for (const at of ['/', '/keys', keyPath, '/subscriptions', '/devices', '/activity']) {
      await open(at);
      await page.setViewportSize({ width: DESKTOP.width / 2, height: DESKTOP.height / 2 });
      const width = await page.evaluate<number>('document.documentElement.scrollWidth');
      await page.setViewportSize(DESKTOP);
      expect({ at, width }).toEqual({ at, width: DESKTOP.width / 2 });
    }
    await page.emulateMedia({ colorScheme: 'dark' });
    try {
      for (const [name, at] of [
        ['dark-overview', '/'],
        ['dark-keys', '/keys'],
        ['dark-key-page', keyPath],
        ['dark-devices', '/devices'],
      ] as const) {
        await open(at);
        expect(await page.evaluate<string>('getComputedStyle(document.body).backgroundColor')).toBe('rgb(18, 22, 28)');
        await auditPage(page, name, figures);
      }
    } finally {
      await page.emulateMedia({ colorScheme: 'light' });
    }
  }, 240_000);

  it('no page broke the Content-Security-Policy', () => {
    expect(cspViolations).toEqual([]);
  });
});

describe('with script off', () => {
  it('the picker is a search form: results come with a page load, what was typed stays, and the entry is registered', async () => {
    const noScript = await browser.newContext({ viewport: PHONE, javaScriptEnabled: false });
    try {
      const tab = await noScript.newPage();
      await tab.goto(`${system.url}/sign-in`);
      await tab.getByLabel('E-mail').fill(email);
      await tab.getByLabel('Password').fill(PASSWORD);
      await tab.getByRole('button', { name: 'Sign in' }).click();
      await tab.goto(`${system.url}/devices`);
      await tab.getByLabel('Serial number').fill('SN-A11Y-0002');
      await tab.getByLabel('Name', { exact: true }).fill('Kitchen speaker');
      await tab.getByLabel('Search the catalog').fill(`${brand} bol`);
      await tab.getByRole('button', { name: 'Search', exact: true }).click();
      expect(await tab.locator('#catalog-status').innerText()).toBe(`1 entry matches “${brand} bol”.`);
      expect(await tab.getByLabel('Serial number').inputValue()).toBe('SN-A11Y-0002');
      await tab.getByRole('radio', { name: new RegExp(`^${brand} Bolero`) }).check();
      await tab.getByRole('button', { name: 'Register device' }).click();
      expect(await tab.getByRole('status').first().innerText()).toContain('“Kitchen speaker” is registered');
      expect(await tab.locator('tr', { hasText: 'SN-A11Y-0002' }).locator('td[data-label="Catalog entry"]').innerText()).toBe(
        `${brand} Bolero`,
      );
    } finally {
      await noScript.close();
    }
  }, 240_000);
});
