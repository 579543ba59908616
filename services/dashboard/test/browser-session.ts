import { afterAll, beforeAll, expect } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from './chromium.js';
import { PASSWORD, startDashboardSystem, uniqueEmail, type DashboardSystem } from './harness.js';

/** One browser page (desktop size, script off) on a real system, for a browser test file. */
export interface BrowserSession {
  system(): DashboardSystem;
  page(): Page;
  /** Console messages about Content-Security-Policy violations seen so far (a test expects none). */
  cspViolations: string[];
}

/**
 * Launches Chromium first (without it the file fails at once with how to install it), then the
 * system with `env`, and one page with script off; closes both after the file.
 */
export function useBrowserSession(env: Record<string, string> = {}): BrowserSession {
  let browser: Browser;
  let system: DashboardSystem;
  let page: Page;
  const cspViolations: string[] = [];
  beforeAll(async () => {
    browser = await launchChromium();
    system = await startDashboardSystem(env);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, javaScriptEnabled: false });
    context.setDefaultTimeout(10_000);
    page = await context.newPage();
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
    });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await system?.stop();
  });
  return { system: () => system, page: () => page, cspViolations };
}

/** Registers a new account through the form (which signs it in) and checks it landed on the overview. */
export async function registerThroughForm(page: Page, dashboardUrl: string, name = { first: 'Grace', last: 'Hopper' }): Promise<void> {
  await page.goto(`${dashboardUrl}/register`);
  await page.getByLabel('E-mail').fill(uniqueEmail());
  await page.getByLabel('First name').fill(name.first);
  await page.getByLabel('Last name').fill(name.last);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  expect(new URL(page.url()).pathname).toBe('/');
}
