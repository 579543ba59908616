import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { appKey } from '@acs/test-support';
import { Browser, textOf } from './browser.js';
import { PASSWORD, SESSION_SECRET, registerUser, startDashboardSystem, type DashboardSystem } from './harness.js';

// `node services/dashboard/dist/main.js` as a container runs it: its own process, configured by
// the environment, Secure cookies by default, talking to the gateway with a system:full-access key.
const ENTRY = fileURLToPath(new URL('../dist/main.js', import.meta.url));
let system: DashboardSystem;
let env: Record<string, string>;

beforeAll(async () => {
  system = await startDashboardSystem();
  const key = await appKey(system.sut, ['system:full-access']);
  env = {
    PATH: process.env.PATH ?? '',
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    GATEWAY_URL: system.sut.url,
    DASHBOARD_API_KEY: key.key,
    DASHBOARD_API_SECRET: key.secret,
    SESSION_SECRET,
  };
}, 90_000);
afterAll(async () => system?.stop());

interface Running {
  child: ChildProcess;
  url: string;
  output: () => string;
}

function run(extra: Record<string, string> = {}): Promise<Running> {
  if (!existsSync(ENTRY)) throw new Error(`${ENTRY} is missing: run npm run build first (npm test does)`);
  const child = spawn(process.execPath, [ENTRY], { env: { ...env, ...extra }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  return new Promise((resolve, reject) => {
    const poll = setInterval(() => {
      const url = /"url":"(http:\/\/[^"]+)"[^\n]*dashboard listening/.exec(output)?.[1];
      if (url) {
        clearInterval(poll);
        resolve({ child, url, output: () => output });
      }
    }, 50);
    child.once('exit', (code) => {
      clearInterval(poll);
      reject(new Error(`exited with ${code}:\n${output}`));
    });
  });
}

const exitCode = (child: ChildProcess): Promise<number | null> => new Promise((resolve) => child.once('exit', resolve));

describe('the dashboard started alone', () => {
  it('serves Secure __Host- cookies and HSTS by default, works end to end, logs neither secrets nor passwords, and stops on SIGTERM', async () => {
    const dashboard = await run();
    try {
      const browser = new Browser(dashboard.url);
      const signInPage = await browser.get('/sign-in');
      const line = signInPage.setCookies.find((l) => l.startsWith('__Host-acs_session='))!;
      expect(line.split('; ')).toEqual(expect.arrayContaining(['Secure', 'HttpOnly', 'SameSite=Strict', 'Path=/']));
      expect(signInPage.headers.get('strict-transport-security')).toMatch(/max-age=\d+/);

      const { email, page } = await registerUser(browser);
      expect(textOf(page.html)).toContain(`Signed in as ${email}`);
      expect((await fetch(`${dashboard.url}/readyz`)).status).toBe(200);

      const logs = dashboard.output();
      expect(logs).toContain('"requestId"');
      expect(logs).not.toContain(env.DASHBOARD_API_SECRET);
      expect(logs).not.toContain(PASSWORD);
      expect(logs).not.toContain(SESSION_SECRET);
      expect(logs).not.toContain('eyJ'); // no JWT
    } finally {
      dashboard.child.kill('SIGTERM');
    }
    expect(await exitCode(dashboard.child)).toBe(0);
  }, 30_000);

  it('readyz answers 503 when the gateway does not', async () => {
    const dashboard = await run({ GATEWAY_URL: 'http://127.0.0.1:9' });
    try {
      const ready = await fetch(`${dashboard.url}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toEqual({ ready: false, checks: { gateway: 'gateway not reachable' } }); // no address, no raw error
      const browser = new Browser(dashboard.url);
      expect((await browser.get('/sign-in')).status).toBe(200); // the form itself needs no gateway
      const attempt = await browser.post('/sign-in', { email: 'a@example.com', password: PASSWORD });
      expect(attempt.status).toBe(503);
      expect(textOf(attempt.html)).toMatch(
        /The account service is not available right now\. Please try again in a moment \(reference [\w-]+\)\./,
      );
    } finally {
      dashboard.child.kill('SIGTERM');
    }
    await exitCode(dashboard.child);
  }, 30_000);

  it('a bad environment stops the start with a message naming the variable', async () => {
    await expect(run({ SESSION_SECRET: 'short' })).rejects.toThrow(/exited with 1:[\s\S]*SESSION_SECRET: expected at least 32 characters/);
  });
});
