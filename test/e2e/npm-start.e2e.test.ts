import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { createMemoryCache } from '@acs/cache';
import { migrate, openDatabase } from '@acs/db';
import { createLogger } from '@acs/logger';
import { KEYS_MIGRATIONS_DIR, createApiKey } from '@acs/keys-service';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { connect } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// `npm start` as a newcomer runs it: no servers, embedded PGlite and cache, data under DATA_DIR.
const ENTRY = fileURLToPath(new URL('../../launcher/dist/main.js', import.meta.url));
const KEYS_CLI = fileURLToPath(new URL('../../services/keys/dist/cli.js', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'acs-npm-start-'));
const legacyDataDir = mkdtempSync(join(tmpdir(), 'acs-npm-start-legacy-'));

const BILLING_CLI = fileURLToPath(new URL('../../services/billing/dist/cli.js', import.meta.url));

/** `npm run keys -- ...` on a DATA_DIR, as an operator types it in a second terminal. */
const keysCli = (dir: string, ...args: string[]) => runCliOn(KEYS_CLI, dir, args);

async function runCliOn(cli: string, dir: string, args: string[]): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [cli, ...args], {
      env: { PATH: process.env.PATH ?? '', DATA_DIR: dir },
    });
    return { code: 0, out: stdout + stderr };
  } catch (err) {
    const failed = err as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? 1, out: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

interface Started {
  child: ChildProcess;
  output: () => string;
  url: string;
}

function start(extraEnv: Record<string, string> = {}, dir = dataDir): Promise<Started> {
  if (!existsSync(ENTRY)) throw new Error(`${ENTRY} is missing: run npm run build first (npm test does)`);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    DATA_DIR: dir,
    PORT: '0',
    DASHBOARD_PORT: '0',
    LOG_LEVEL: 'warn',
    ...extraEnv,
  };
  const child = spawn(process.execPath, [ENTRY], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  return new Promise((resolve, reject) => {
    // Generous: a first start on a machine shared with other jobs has taken over 100 s.
    const timer = setTimeout(() => reject(new Error(`no banner within 240 s:\n${output}`)), 240_000);
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

/** Every path under `dir` whose mode lets the group or others in (anything in 0o077), with its mode. */
function looseModes(dir: string): string[] {
  const loose: string[] = [];
  const visit = (path: string): void => {
    const mode = statSync(path).mode & 0o777;
    if (mode & 0o077) loose.push(`${path} ${mode.toString(8)}`);
    if (statSync(path).isDirectory()) for (const entry of readdirSync(path)) visit(join(path, entry));
  };
  visit(dir);
  return loose;
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
  const body = new URLSearchParams({
    _csrf: csrf,
    email: `npm-start-${Date.now()}@example.com`,
    firstName: 'Ada',
    lastName: 'L',
    password: 'violet-anvil-0427-harbor',
  });
  const res = await fetch(`${url}/register`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body,
  });
  return res.status === 303 ? res.headers.get('location') : `${res.status}`;
}

beforeAll(async () => {
  first = await start();
}, 300_000);
afterAll(() => {
  if (first && first.child.exitCode === null) first.child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(legacyDataDir, { recursive: true, force: true });
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

  it('says in its banner how long it took to be ready, and that the CLIs work while it runs', () => {
    expect(first.output()).toMatch(/ready in \d+\.\d s\)/);
    expect(first.output()).toContain('while this runs');
    expect(first.output()).not.toMatch(/after stopping/);
  });

  it('lets the keys CLI make, list and revoke keys while it runs; a revoked key stops working at once', async () => {
    const made = await keysCli(dataDir, 'create', '--scopes', 'system:full-access', '--name', 'made while running');
    expect(made.code).toBe(0);
    const key = /X-Api-Key: +(\S+)/.exec(made.out)![1]!;
    const secret = /X-Api-Secret: +(\S+)/.exec(made.out)![1]!;
    const call = () => fetch(`${first.url}/api/Dac?pageSize=1`, { headers: { 'X-Api-Key': key, 'X-Api-Secret': secret } });
    expect((await call()).status).toBe(200);
    const listed = await keysCli(dataDir, 'list');
    expect(listed.code).toBe(0);
    expect(listed.out).toContain(key);
    expect((await keysCli(dataDir, 'revoke', key)).code).toBe(0);
    // The CLI wrote through the running system's own cache: the gateway refuses the key now.
    expect((await call()).status).toBe(401);
  }, 60_000);

  it("lets the billing CLI change a plan's quota while it runs; GET /api/SubscriptionPlans shows it", async () => {
    const set = await runCliOn(BILLING_CLI, dataDir, ['plans', 'set-quota', 'yearly', '777/1d']);
    expect(set).toMatchObject({ code: 0, out: expect.stringContaining('Plan yearly: quota now 1000000/1mo,777/1d') });
    const res = await fetch(`${first.url}/api/SubscriptionPlans`, {
      headers: { 'X-Api-Key': credentials.key, 'X-Api-Secret': credentials.secret },
    });
    const plans = (await res.json()) as { items: { id: string; quota: unknown }[] };
    expect(plans.items.find((plan) => plan.id === 'yearly')?.quota).toEqual({ perMonth: 1_000_000, perDay: 777 });
  }, 60_000);

  it("leaves the gateway's metrics listener off when METRICS_PORT is not set", () => {
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
    const logLines = first
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'));
    expect(logLines.some((line) => line.includes(credentials.secret))).toBe(false);
  });

  it('keeps DATA_DIR private: after writes (keys made, revoked, a user registered), nothing in it is open to the group or others', async () => {
    expect(await registerThroughDashboard(dashboardUrlOf(first.output()))).toBe('/');
    expect((await keysCli(dataDir, 'create', '--scopes', 'read:devices', '--name', 'privacy check', '--owner', '1')).code).toBe(0);
    expect(looseModes(dataDir)).toEqual([]);
    // keys list names the owner by e-mail, read from identity's schema through the running system.
    const listed = await keysCli(dataDir, 'list', '--owner', '1');
    expect(listed.out).toMatch(/user 1 <npm-start-\d+@example\.com>.*"privacy check"/);
  }, 60_000);

  it('survives a malformed frame on the CLI socket: that connection is closed, the system and the CLIs go on', async () => {
    const closed = await new Promise<boolean>((resolve) => {
      const socket = connect(join(dataDir, 'run', 'system.sock'), () => socket.write(Buffer.from('00000005ff0d994201', 'hex')));
      socket.on('error', () => {});
      socket.once('close', () => resolve(true));
      setTimeout(() => resolve(false), 10_000).unref();
    });
    expect(closed).toBe(true);
    expect(first.child.exitCode).toBeNull();
    expect((await keysCli(dataDir, 'list')).code).toBe(0);
    const res = await fetch(`${first.url}/api/Dac?pageSize=1`, {
      headers: { 'X-Api-Key': credentials.key, 'X-Api-Secret': credentials.secret },
    });
    expect(res.status).toBe(200);
  }, 60_000);

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
      const res = await fetch(`${second.url}/api/Dac?pageSize=1`, {
        headers: { 'X-Api-Key': credentials.key, 'X-Api-Secret': credentials.secret },
      });
      expect(res.status).toBe(200);
      const metricsUrl = /Metrics: +(http:\/\/[\d.:]+\/metrics)/.exec(second.output())?.[1];
      expect(metricsUrl).toBeDefined();
      const scraped = await (await fetch(metricsUrl!)).text();
      expect(scraped).toMatch(/^http_server_requests_total\{[^}]*route="\/api\/Dac"[^}]*status="200"[^}]*\} 1$/m);
      expect((await fetch(`${second.url}/metrics`)).status).toBe(404);
    } finally {
      expect(await stop(second.child)).toBe(0);
    }
    // Stopped, the CLI opens the embedded database itself (identity's schema too, for the owners' e-mails).
    const listed = await keysCli(dataDir, 'list');
    expect(listed.code).toBe(0);
    expect(listed.out).toContain(credentials.key);
    expect(listed.out).toMatch(/user 1 <npm-start-\d+@example\.com>/);
  }, 120_000);
});

describe('npm start on a DATA_DIR of the older layout (a PGlite folder per service)', () => {
  it('carries the data over on its first start: a key made by the older version still works', async () => {
    const logger = createLogger({ name: 'older-version', level: 'silent' });
    const old = await openDatabase({ dataDir: join(legacyDataDir, 'keys'), logger });
    await migrate(old, KEYS_MIGRATIONS_DIR, logger);
    const { apiKey, secret } = await createApiKey(
      {
        db: old,
        cache: createMemoryCache(),
        logger,
        keyPrefix: 'acs',
        onOutboxWrite: () => undefined,
        actor: { type: 'operator', id: 'older version', requestId: null, clientAddress: null },
      },
      { name: 'older layout', scopes: ['system:full-access'], ownerUserId: null, environment: 'live' },
    );
    await old.close();
    // Made by an older version under umask 022: readable by every local user until this start tightens it.
    chmodSync(legacyDataDir, 0o755);
    writeFileSync(join(legacyDataDir, 'internal-secret'), 'a'.repeat(43), { mode: 0o644 });
    chmodSync(join(legacyDataDir, 'internal-secret'), 0o644);
    expect(looseModes(legacyDataDir).length).toBeGreaterThan(0);

    const started = await start({}, legacyDataDir);
    try {
      expect(looseModes(legacyDataDir)).toEqual([]);
      expect(started.output()).toMatch(/made DATA_DIR private/);
      expect(started.output()).not.toContain('X-Api-Secret'); // the carried-over system key counts
      const res = await fetch(`${started.url}/api/Dac?pageSize=1`, { headers: { 'X-Api-Key': apiKey.key, 'X-Api-Secret': secret } });
      expect(res.status).toBe(200);
      expect(existsSync(join(legacyDataDir, 'keys.carried-over', 'PG_VERSION'))).toBe(true);
      expect(existsSync(join(legacyDataDir, 'keys', 'PG_VERSION'))).toBe(false);
    } finally {
      expect(await stop(started.child)).toBe(0);
    }
  }, 180_000);
});
