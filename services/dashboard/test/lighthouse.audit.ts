import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from './chromium.js';
import { PASSWORD, startDashboardSystem, uniqueEmail, type DashboardSystem } from './harness.js';

// By hand, not in `npm test`: `npm run dashboard:audit`. Lighthouse (pinned; it runs on Node 20) with
// Debian's Chromium at its default mobile settings scores accessibility and best practices of every
// page, signed out and signed in; and each page's answer time at the dashboard is measured (not
// asserted: figures are printed). Results go to test-artifacts/lighthouse/ (git-ignored).
const LIGHTHOUSE = 'lighthouse@12.2.3';
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const OUT = fileURLToPath(new URL('../../../test-artifacts/lighthouse/', import.meta.url));
const ROUNDS = 10;
const MIN_SCORE = 95;
const run = promisify(execFile);

let system: DashboardSystem;
let browser: Browser;
let page: Page;
let cookie = '';
const pages: Array<{ name: string; path: string; signedIn: boolean }> = [];

beforeAll(async () => {
  browser = await launchChromium();
  system = await startDashboardSystem();
  page = await (await browser.newContext()).newPage();
  await mkdir(OUT, { recursive: true });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await system?.stop();
});

/** A signed-in user with three keys (one revoked), a subscription and a device: every page has content. */
async function populate(): Promise<void> {
  const at = (path: string) => page.goto(`${system.url}${path}`);
  await at('/register');
  await page.getByLabel('E-mail').fill(uniqueEmail());
  await page.getByLabel('First name').fill('Ada');
  await page.getByLabel('Last name').fill('Lovelace');
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  let keyPath = '';
  for (const [name, scope] of [
    ['studio app', 'read:devices'],
    ['login app', 'auth:login'],
    ['old app', 'register:device'],
  ] as const) {
    await at('/keys/new');
    await page.getByLabel('Name').fill(name);
    await page.getByRole('checkbox', { name: new RegExp(`^${scope}\\b`) }).check();
    await page.getByRole('button', { name: 'Create key' }).click();
    keyPath ||= new URL(page.url()).pathname;
  }
  await page.getByRole('link', { name: 'Revoke…' }).click();
  await page.getByRole('button', { name: /^Revoke key/ }).click();
  await at('/subscriptions/plans/monthly');
  await page.getByRole('button', { name: /^Subscribe to Monthly/ }).click();
  await at('/devices');
  await page.getByLabel('Serial number').fill('SN-AUDIT-1');
  await page.getByLabel('Name', { exact: true }).fill('Living room amp');
  await page.getByRole('button', { name: 'Register device' }).click();
  const session = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
  cookie = session;
  const subscription = /href="(\/subscriptions\/[^"]+\/cancel)"/.exec(await (await fetchPage('/subscriptions')).text())?.[1] ?? '';
  // Not the 404 page: Lighthouse refuses to score a page answered with 404 (axe in npm test covers it).
  for (const path of ['/', '/sign-in', '/register'])
    pages.push({ name: `out ${path === '/' ? 'landing' : path.slice(1)}`, path, signedIn: false });
  for (const path of [
    '/',
    '/keys',
    '/keys/new',
    keyPath,
    `${keyPath}/edit`,
    `${keyPath}/roll`,
    `${keyPath}/revoke`,
    '/subscriptions',
    '/subscriptions/plans/yearly',
    subscription,
    '/devices',
    '/devices?q=a',
  ])
    pages.push({ name: `in ${path.replace(/[0-9a-f-]{36}/, ':id')}`, path, signedIn: true });
}

const fetchPage = (path: string, signedIn = true) => fetch(`${system.url}${path}`, { headers: signedIn ? { cookie } : {} });

/** Request sent to body read, ROUNDS times after one warm-up: median, p95 and the slowest (ms). */
async function answerTimes(path: string, signedIn: boolean): Promise<{ median: number; p95: number; max: number }> {
  await (await fetchPage(path, signedIn)).text();
  const times: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const started = performance.now();
    const res = await fetchPage(path, signedIn);
    await res.text();
    expect(res.status).toBeLessThan(500);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const round = (ms: number) => Math.round(ms * 10) / 10;
  return { median: round(times[Math.floor(ROUNDS / 2)]!), p95: round(times[Math.ceil(ROUNDS * 0.95) - 1]!), max: round(times.at(-1)!) };
}

/** One Lighthouse run at its default (mobile) settings; the session cookie rides along as a header. */
async function lighthouse(path: string, signedIn: boolean, file: string): Promise<{ accessibility: number; bestPractices: number }> {
  const args = [
    '--yes',
    LIGHTHOUSE,
    `${system.url}${path}`,
    '--only-categories=accessibility,best-practices',
    '--output=json',
    `--output-path=${file}`,
    '--quiet',
    '--chrome-flags=--headless=new --no-sandbox --disable-gpu --no-first-run --disable-background-networking --disable-component-update',
  ];
  if (signedIn) args.push(`--extra-headers=${JSON.stringify({ Cookie: cookie })}`);
  await run('npx', args, { env: { ...process.env, CHROME_PATH: CHROMIUM }, maxBuffer: 64 * 1024 * 1024 });
  const report = JSON.parse(await readFile(file, 'utf8')) as { categories: Record<string, { score: number }> };
  return {
    accessibility: Math.round(report.categories.accessibility!.score * 100),
    bestPractices: Math.round(report.categories['best-practices']!.score * 100),
  };
}

it('every page: Lighthouse accessibility and best practices (mobile) and the answer time at the dashboard', async () => {
  await populate();
  const rows: string[] = [];
  const results = [];
  for (const [i, target] of pages.entries()) {
    const times = await answerTimes(target.path, target.signedIn);
    const scores = await lighthouse(target.path, target.signedIn, join(OUT, `${String(i).padStart(2, '0')}.json`));
    results.push({ ...target, ...scores, ...times });
    rows.push(`| ${target.name} | ${scores.accessibility} | ${scores.bestPractices} | ${times.median} | ${times.p95} | ${times.max} |`);
    process.stdout.write(`${rows.at(-1)}\n`);
  }
  const table = [
    `Lighthouse ${LIGHTHOUSE.split('@')[1]} (mobile), ${ROUNDS} answers per page; ${new Date().toISOString()}`,
    '| Page | Accessibility | Best practices | Median ms | p95 ms | Max ms |',
    '|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
  process.stdout.write(`\n${table}\n`);
  await writeFile(join(OUT, 'summary.md'), `${table}\n`);
  await writeFile(join(OUT, 'summary.json'), `${JSON.stringify(results, null, 2)}\n`);
  for (const result of results)
    expect({
      page: result.name,
      accessibility: result.accessibility >= MIN_SCORE,
      bestPractices: result.bestPractices >= MIN_SCORE,
    }).toEqual({
      page: result.name,
      accessibility: true,
      bestPractices: true,
    });
}, 3_600_000);
