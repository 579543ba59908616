import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// `npm start` as a newcomer runs it: no servers, embedded PGlite and cache, data under DATA_DIR.
const ENTRY = fileURLToPath(new URL('../../launcher/dist/main.js', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'acs-npm-start-'));

interface Started {
  child: ChildProcess;
  output: () => string;
  url: string;
}

function start(extraEnv: Record<string, string> = {}): Promise<Started> {
  if (!existsSync(ENTRY)) throw new Error(`${ENTRY} is missing: run npm run build first (npm test does)`);
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, PORT: '0', DASHBOARD_PORT: '0', LOG_LEVEL: 'warn', ...extraEnv };
  const child = spawn(process.execPath, [ENTRY], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner within 90 s:\n${output}`)), 90_000);
    const poll = setInterval(() => {
      const match = /is running at (http:\/\/[\d.:]+)/.exec(output);
      if (match && output.includes('Press Ctrl-C')) {
        clearInterval(poll);
        clearTimeout(timer);
        resolve({ child, output: () => output, url: match[1]! });
      }
    }, 100);
    child.once('exit', (code) => {
      clearInterval(poll);
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before it was ready:\n${output}`));
    });
  });
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill('SIGINT');
  });
}

let first: Started;
let credentials: { key: string; secret: string };
let dashboardKeyFile: string;

const dashboardUrlOf = (output: string): string => /Account dashboard: +(http:\/\/[\d.:]+)/.exec(output)![1]!;

/** The dashboard's register form, sent as a browser would: where the dashboard sends the new user. */
async function registerThroughDashboard(url: string): Promise<string | null> {
  const form = await fetch(`${url}/register`);
  const cookie = form.headers.get('set-cookie')!.split(';')[0]!;
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1]!;
  const body = new URLSearchParams({ _csrf: csrf, email: `npm-start-${Date.now()}@example.com`, firstName: 'Ada', lastName: 'L', password: 'violet-anvil-0427-harbor' });
  const res = await fetch(`${url}/register`, { method: 'POST', redirect: 'manual', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body });
  return res.status === 303 ? res.headers.get('location') : `${res.status}`;
}

beforeAll(async () => {
  first = await start();
}, 120_000);
afterAll(() => {
  if (first && first.child.exitCode === null) first.child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

describe('npm start (embedded mode)', () => {
  it('prints a system key once, with a curl line that serves seeded products', async () => {
    const out = first.output();
    const key = /X-Api-Key: +(\S+)/.exec(out)?.[1];
    const secret = /X-Api-Secret: +(\S+)/.exec(out)?.[1];
    expect(key).toMatch(/^acs_live_[A-Za-z0-9]+$/);
    expect(secret).toBeDefined();
    credentials = { key: key!, secret: secret! };
    const curlUrl = /curl -s '([^']+)'/.exec(out)?.[1];
    expect(curlUrl).toContain(first.url);
    const res = await fetch(curlUrl!, { headers: { 'X-Api-Key': key!, 'X-Api-Secret': secret! } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { items: { brand: string }[]; total: number };
    expect(body.total).toBeGreaterThan(0);
    expect(body.items.every((i) => i.brand === 'Topping')).toBe(true);
  });

  it('leaves the gateway\'s metrics listener off when METRICS_PORT is not set', () => {
    expect(first.output()).not.toContain('Metrics:');
  });

  it('serves the account dashboard: its sign-in page, with a session cookie that is not Secure on plain HTTP', async () => {
    const page = await fetch(`${dashboardUrlOf(first.output())}/sign-in`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('action="/sign-in"');
    expect(page.headers.get('set-cookie')).toMatch(/^acs_session=[^;]+; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Strict$/);
    dashboardKeyFile = readFileSync(join(dataDir, 'dashboard-api-key.json'), 'utf8');
  });

  it('keeps the secret out of its log lines', () => {
    const logLines = first.output().split('\n').filter((line) => line.startsWith('{'));
    expect(logLines.some((line) => line.includes(credentials.secret))).toBe(false);
  });

  it('refuses a second instance on the same DATA_DIR', async () => {
    await expect(start()).rejects.toThrow(/is using/);
  }, 60_000);

  it('stops cleanly on Ctrl-C and keeps its data for the next start (this one with METRICS_PORT set)', async () => {
    expect(await stop(first.child)).toBe(0);
    const second = await start({ METRICS_PORT: '0' });
    try {
      expect(second.output()).not.toContain('X-Api-Secret'); // no new system key: the first one persisted
      // The dashboard kept its key (under DATA_DIR) and the gateway still accepts it: a registration goes through.
      expect(readFileSync(join(dataDir, 'dashboard-api-key.json'), 'utf8')).toBe(dashboardKeyFile);
      expect(await registerThroughDashboard(dashboardUrlOf(second.output()))).toBe('/');
      const res = await fetch(`${second.url}/api/Dac?pageSize=1`, { headers: { 'X-Api-Key': credentials.key, 'X-Api-Secret': credentials.secret } });
      expect(res.status).toBe(200);
      const metricsUrl = /Metrics: +(http:\/\/[\d.:]+\/metrics)/.exec(second.output())?.[1];
      expect(metricsUrl).toBeDefined();
      const scraped = await (await fetch(metricsUrl!)).text();
      expect(scraped).toMatch(/^http_server_requests_total\{[^}]*route="\/api\/Dac"[^}]*status="200"[^}]*\} 1$/m);
      expect((await fetch(`${second.url}/metrics`)).status).toBe(404);
    } finally {
      expect(await stop(second.child)).toBe(0);
    }
  }, 120_000);
});
