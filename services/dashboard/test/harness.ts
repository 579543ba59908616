import { randomBytes } from 'node:crypto';
import { expect } from '@jest/globals';
import { startSystemUnderTest, type SystemUnderTest } from '@acs/test-support';
import { Browser, textOf, type Page } from './browser.js';

// The whole platform as the launcher runs it (real PostgreSQL and Redis, in-process bus), with
// the dashboard on a free port; tests drive the dashboard only, and check effects at the gateway.

export const SESSION_SECRET = 'dashboard-test-session-secret-0123456789abcdef';

export interface DashboardSystem {
  sut: SystemUnderTest;
  url: string;
  browser(): Browser;
  stop(): Promise<void>;
}

export async function startDashboardSystem(overrides: Record<string, string> = {}): Promise<DashboardSystem> {
  const sut = await startSystemUnderTest({ DASHBOARD_PORT: '0', SESSION_SECRET, ...overrides });
  const url = sut.system.dashboardUrl;
  return { sut, url, browser: () => new Browser(url), stop: () => sut.stop() };
}

export const PASSWORD = `amber-violin-${randomBytes(6).toString('hex')}`;
export const uniqueEmail = (): string => `dash-${randomBytes(5).toString('hex')}@example.com`;

/** Registers through the dashboard's form; the browser ends up signed in, on the overview. */
export async function registerUser(
  browser: Browser,
  fields: Partial<Record<'email' | 'firstName' | 'lastName' | 'password', string>> = {},
): Promise<{ email: string; page: Page }> {
  const email = fields.email ?? uniqueEmail();
  await browser.get('/register');
  const page = await browser.post('/register', { email, firstName: 'Grace', lastName: 'Hopper', password: PASSWORD, ...fields });
  expect(page.status).toBe(200);
  expect(page.path).toBe('/');
  return { email, page };
}

export async function signIn(browser: Browser, email: string, password = PASSWORD): Promise<Page> {
  await browser.get('/sign-in');
  return browser.post('/sign-in', { email, password });
}

/** The key and secret shown once after creating a key. */
export function createdCredentials(page: Page): { key: string; secret: string } {
  const key = /<code id="created-key">([^<]+)<\/code>/.exec(page.html)?.[1];
  const secret = /<code id="created-secret" class="secret-value">([^<]+)<\/code>/.exec(page.html)?.[1];
  if (!key || !secret) throw new Error(`no created key on the page: ${textOf(page.html).slice(0, 500)}`);
  return { key, secret };
}

/** The id of the key `key`: from its own page's path, or from its row on the keys list. */
export function keyIdOf(page: Page, key: string): string {
  const own = /^\/keys\/([0-9a-f-]{36})$/.exec(page.path)?.[1];
  if (own && page.html.includes(`<code>${key}</code>`)) return own;
  const row = page.html.split('<tr data-key-id=').find((r) => r.includes(`<code>${key}</code>`));
  const id = row && /^"([^"]+)"/.exec(row)?.[1];
  if (!id) throw new Error(`no row for ${key}`);
  return id;
}

/** The key's own windows in RateLimit-Policy, without the plan quota's items that follow them (issue 29). */
export const keyWindows = (policy: string | null): string | null =>
  policy === null
    ? null
    : policy
        .split(', ')
        .filter((item) => !item.startsWith('"quota-'))
        .join(', ') || null;
