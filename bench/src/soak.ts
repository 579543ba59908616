import { createWriteStream } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { subscriptionQueueNames } from '@acs/bus';
import { deleteAmqpObjects, deleteRedisKeys, startFaultProxy, testServerUrl, uniqueName, type FaultProxy } from '@acs/testing';
import { startProcess, type ServiceProcess } from './processes.js';
import { SoakJournal, type Outage } from './soak-journal.js';
import { benchOptions, seededKeysEnv } from './bench-options.js';

const HELP = `Soak run: mixed traffic of every operation through the gateway on the real PostgreSQL, Redis and
RabbitMQ, every service its own process, while Redis, PostgreSQL and RabbitMQ are each cut once
(through a TCP fault proxy) and restored. Not a test: run it by hand, read the report.

Usage: npm run soak -- [--minutes N] [--clients N] [--outage-seconds N] [--recovery-seconds N]

  --minutes N            length of the traffic phase (default 10)
  --clients N            concurrent simulated clients, each a user journey in a loop (default 6)
  --outage-seconds N     how long each dependency stays cut (default 10)
  --recovery-seconds N   after a restore, how long 5xx still count as part of the outage (default 15)

Outages: Redis at 20% of the run, PostgreSQL at 45%, RabbitMQ at 70%. Reports requests, 5xx inside
and outside the outage windows (goal outside: 0), subscriptions whose role change never reached
the gateway (goal 0), key changes not applied on the key's next request (goal 0), and each
process's resident memory at start and end (and every 5 minutes during the run). Exit code 1 when a goal is missed.
Environment: DATABASE_URL, REDIS_URL, AMQP_URL (default: the local servers). Makes and drops its
own databases (acs_soak_*), Redis prefix, exchange and queues; process logs go to
bench/results/soak-<time>.log, the figures also to bench/results/soak-<time>.json.`;

const values = benchOptions(HELP, {
  minutes: { type: 'string', default: '10' },
  clients: { type: 'string', default: '6' },
  'outage-seconds': { type: 'string', default: '10' },
  'recovery-seconds': { type: 'string', default: '15' },
});
const minutes = Number(values.minutes);
const clients = Number(values.clients);
const outageSeconds = Number(values['outage-seconds']);
const recoverySeconds = Number(values['recovery-seconds']);
for (const [name, value, min] of [
  ['--minutes', minutes, 0.5],
  ['--clients', clients, 1],
  ['--outage-seconds', outageSeconds, 1],
  ['--recovery-seconds', recoverySeconds, 0],
] as const) {
  if (!Number.isFinite(value) || value < min) {
    console.error(`${name} must be a number of at least ${min}`);
    process.exit(2);
  }
}

const RESULTS = fileURLToPath(new URL('../results/', import.meta.url));
const INTERNAL_SECRET = 'soak-internal-secret-0123456789abcdefgh';
const SYSTEM_KEY = 'acs_live_SoakSystemKey000000000000001';
const SYSTEM_SECRET = 'soak-secret-that-is-long-enough-00000000000';
const ADMIN_EMAIL = 'soak-admin@example.com';
const PASSWORD = `violet-anvil-soak-${randomBytes(4).toString('hex')}`;
const RETRY_DELAYS_MS = [1000, 5000];
const base = uniqueName('acs_soak');
const exchange = `${base}.events`;
const queue = `${base}.identity`;
const redisPrefix = `${base}:`;
const SERVICES = ['keys', 'identity', 'catalog', 'device', 'billing'] as const;

const stamp = new Date().toISOString().replace(/[:.]/g, '-');
await mkdir(RESULTS, { recursive: true });
const logPath = `${RESULTS}soak-${stamp}.log`;
const log = createWriteStream(logPath);

const journal = new SoakJournal();
const processes = new Map<string, ServiceProcess>();
const proxies: Record<'PostgreSQL' | 'Redis' | 'RabbitMQ', FaultProxy | null> = { PostgreSQL: null, Redis: null, RabbitMQ: null };

/** Resident memory of a child process, in MiB, from /proc. */
async function rssMiB(p: ServiceProcess): Promise<number> {
  const status = await readFile(`/proc/${p.child.pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** How often a long run prints every process's resident memory: growth that stops is warm-up, growth that goes on is a leak. */
const MEMORY_SAMPLE_MS = 5 * 60_000;

async function memoryLine(processes: ReadonlyMap<string, ServiceProcess>, startedAt: number): Promise<string> {
  const parts: string[] = [];
  for (const [name, p] of processes) parts.push(`${name} ${(await rssMiB(p)).toFixed(1)}`);
  return `memory at ${((Date.now() - startedAt) / 60_000).toFixed(0)} min (MiB RSS): ${parts.join(', ')}`;
}

let gatewayUrl = '';
type Auth = { key: string; secret: string };
const system: Auth = { key: SYSTEM_KEY, secret: SYSTEM_SECRET };
interface Answer {
  status: number;
  body: Record<string, unknown>;
}

/** One request through the gateway, recorded in the journal under its operation; a network failure is status 0. */
async function call(
  op: string,
  method: string,
  path: string,
  auth: Auth,
  options: { token?: string; body?: unknown } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { 'x-api-key': auth.key, 'x-api-secret': auth.secret };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const started = Date.now();
  let status = 0;
  let body: Record<string, unknown> = {};
  try {
    const res = await fetch(gatewayUrl + path, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: AbortSignal.timeout(20_000),
    });
    status = res.status;
    const text = await res.text();
    try {
      body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      body = { unparsed: text.slice(0, 200) };
    }
  } catch (err) {
    body = { failure: String(err) };
  }
  journal.record(op, method, status, started, Date.now());
  return { status, body };
}

const brandOf = (): string => `Soak${randomBytes(4).toString('hex')}`;
const speaker = (brand: string, model: string) => ({
  type: 'speaker',
  brand,
  model,
  price: 399,
  releaseYear: 2024,
  specs: { sensitivityDb: 88, impedanceOhms: 8, frequencyLowHz: 50, frequencyHighHz: 22000, design: 'bookshelf' },
});

/**
 * A key change answered 200 must hold on the key's very next request (docs/architecture.md, decision
 * 3). A next request that fails with a 5xx cannot tell, and is counted as unverified.
 */
async function checkKeyApplied(what: string, key: Auth, expected: number): Promise<void> {
  const next = await call('GET /api/Dac (changed key)', 'GET', '/api/Dac?pageSize=1', key);
  if (next.status >= 500 || next.status === 0) journal.keyChangeUnverified();
  else if (next.status !== expected) journal.keyChangeNotApplied(`${what}: expected ${expected}, next request answered ${next.status}`);
  else journal.keyChangeApplied();
}

/** Waits until the gateway lets the user manage keys (role >= 1): the subscription's event has reached identity. */
async function waitForRole(token: string, subscribedAt: number, limitMs: number): Promise<boolean> {
  while (Date.now() - subscribedAt < limitMs && !stopping) {
    const res = await call('GET /api/ApiKeys', 'GET', '/api/ApiKeys', system, { token });
    if (res.status === 200) return true;
    await sleep(250);
  }
  return false;
}

let stopping = false;
let adminToken = '';
const pending: { token: string; subscribedAt: number }[] = [];

/** One simulated client: a new user's journey through every operation, again and again. */
async function client(index: number, app: Auth, firmware: Auth, writer: Auth): Promise<void> {
  while (!stopping) {
    const token = await signUp(index, app);
    if (!token) {
      await sleep(500);
      continue;
    }
    await browse(index, app, firmware, token);
    await subscriptionJourney(index, token);
    // The admin import: a dry run from every client, a small real one now and then.
    if (adminToken) {
      const real = index === 0;
      const brand = brandOf();
      await call('POST /api/Dac/import', 'POST', `/api/Dac/import${real ? '' : '?dryRun=true'}`, writer, {
        token: adminToken,
        body: [speaker(brand, 'One'), speaker(brand, 'Two')],
      });
    }
  }
}

/** A new user registers and logs in: their token, or undefined when either step failed. */
async function signUp(index: number, app: Auth): Promise<string | undefined> {
  const email = `soak-${index}-${randomBytes(5).toString('hex')}@example.com`;
  const registered = await call('POST /api/Users/Register', 'POST', '/api/Users/Register', app, {
    body: { email, password: PASSWORD, firstName: 'Soak', lastName: `Client${index}` },
  });
  if (registered.status !== 201) return undefined;
  const login = await call('POST /api/Users/Login', 'POST', '/api/Users/Login', app, { body: { email, password: PASSWORD } });
  return login.body.token as string | undefined;
}

/** The catalog, the plans, and a device registered and listed. */
async function browse(index: number, app: Auth, firmware: Auth, token: string): Promise<void> {
  for (let i = 0; i < 4 && !stopping; i++) {
    const brand = ['Topping', 'SMSL', 'Schiit', 'Yamaha'][i]!;
    await call('GET /api/Dac', 'GET', `/api/Dac?brand=${brand}&page=${1 + (i % 2)}&pageSize=${5 + i}`, app);
  }
  await call('GET /api/SubscriptionPlans', 'GET', '/api/SubscriptionPlans', app);
  await call('POST /api/Devices/Register', 'POST', '/api/Devices/Register', firmware, {
    token,
    body: { serialNumber: `SN-${randomBytes(6).toString('hex')}`, name: 'Soak DAC', catalogEntryId: 1 + (index % 20) },
  });
  await call('GET /api/Devices', 'GET', '/api/Devices', app, { token });
}

/** A subscription, the role it brings (waited for), a key made and changed under it, then the subscription cancelled. */
async function subscriptionJourney(index: number, token: string): Promise<void> {
  const subscribed = await call('POST /api/Subscriptions', 'POST', '/api/Subscriptions', system, { token, body: { planId: 'monthly' } });
  if (subscribed.status !== 201) return;
  journal.subscriptionCreated();
  const subscribedAt = Date.now();
  if (await waitForRole(token, subscribedAt, 60_000)) journal.roleArrived(Date.now() - subscribedAt);
  else pending.push({ token, subscribedAt });
  const subscriptionId = subscribed.body.id as string;
  await keyChanges(index, token);
  await call('GET /api/Subscriptions', 'GET', '/api/Subscriptions', system, { token });
  await call('DELETE /api/Subscriptions/{id}', 'DELETE', `/api/Subscriptions/${subscriptionId}`, system, { token });
}

/** A key made, narrowed, widened and revoked, each change checked on the key's next request. */
async function keyChanges(index: number, token: string): Promise<void> {
  const created = await call('POST /api/ApiKeys', 'POST', '/api/ApiKeys', system, {
    token,
    body: { name: `soak ${index}`, scopes: 'read:devices' },
  });
  if (created.status !== 201) return;
  const key = { key: created.body.key as string, secret: created.body.secret as string };
  const id = created.body.id as string;
  await call('GET /api/Dac (new key)', 'GET', '/api/Dac?pageSize=1', key);
  const narrowed = await call('PATCH /api/ApiKeys/{id}', 'PATCH', `/api/ApiKeys/${id}`, system, {
    token,
    body: { scopes: 'auth:login' },
  });
  if (narrowed.status === 200) await checkKeyApplied('scopes narrowed to auth:login', key, 403);
  const widened = await call('PATCH /api/ApiKeys/{id}', 'PATCH', `/api/ApiKeys/${id}`, system, {
    token,
    body: { scopes: 'read:devices', name: 'soak renamed' },
  });
  if (widened.status === 200) await checkKeyApplied('scopes widened to read:devices', key, 200);
  await call('GET /api/ApiKeys', 'GET', '/api/ApiKeys', system, { token });
  const revoked = await call('DELETE /api/ApiKeys/{id}', 'DELETE', `/api/ApiKeys/${id}`, system, { token });
  if (revoked.status === 200) await checkKeyApplied('revoked', key, 401);
}

/** Cuts one dependency at `atMs` into the run for `outageSeconds`, and records the window. */
async function outage(name: keyof typeof proxies, atMs: number, startedAt: number): Promise<void> {
  await sleep(Math.max(0, startedAt + atMs - Date.now()));
  if (stopping) return;
  const proxy = proxies[name]!;
  const window: Outage = { dependency: name, cutAt: Date.now(), restoredAt: 0, recoveryMs: recoverySeconds * 1000 };
  journal.outages.push(window);
  console.log(`  ${name} cut`);
  proxy.cut();
  await sleep(outageSeconds * 1000);
  proxy.restore();
  window.restoredAt = Date.now();
  console.log(`  ${name} restored`);
}

async function cleanUp(): Promise<void> {
  for (const p of [...processes.values()].reverse()) await p.stop().catch(() => {});
  for (const proxy of Object.values(proxies)) await proxy?.close();
  const admin = new pg.Client({ connectionString: testServerUrl('DATABASE_URL') });
  await admin.connect();
  for (const service of SERVICES) await admin.query(`DROP DATABASE IF EXISTS "${base}_${service}" WITH (FORCE)`);
  await admin.end();
  await deleteRedisKeys(redisPrefix);
  await deleteAmqpObjects({ queues: subscriptionQueueNames(queue, RETRY_DELAYS_MS), exchanges: [exchange] });
  log.end();
}

try {
  proxies.PostgreSQL = await startFaultProxy(testServerUrl('DATABASE_URL'), 5432);
  proxies.Redis = await startFaultProxy(testServerUrl('REDIS_URL'), 6379);
  proxies.RabbitMQ = await startFaultProxy(testServerUrl('AMQP_URL'), 5672);
  const dbUrl = (service: string): string => {
    const url = new URL(proxies.PostgreSQL!.url);
    url.pathname = `/${base}_${service}`;
    return url.toString();
  };
  const common = { INTERNAL_SECRET, LOG_LEVEL: 'warn', HOST: '127.0.0.1', REDIS_PREFIX: redisPrefix };
  const redis = { REDIS_URL: proxies.Redis.url };
  const bus = { AMQP_URL: proxies.RabbitMQ.url, BUS_EXCHANGE: exchange };
  const start = async (name: string, entry: string, env: Record<string, string>): Promise<ServiceProcess> => {
    const p = await startProcess(name, entry, env, [], log);
    processes.set(name, p);
    return p;
  };
  console.log(`starting keys, identity, catalog, device, billing and the gateway (logs: ${logPath})`);
  const keys = await start('keys', 'services/keys/dist/main.js', {
    ...common,
    ...redis,
    ...bus,
    ...seededKeysEnv(dbUrl('keys'), { key: SYSTEM_KEY, secret: SYSTEM_SECRET }),
  });
  const identity = await start('identity', 'services/identity/dist/main.js', {
    ...common,
    ...redis,
    ...bus,
    DATABASE_URL: dbUrl('identity'),
    BCRYPT_COST: '4',
    TRIAL_DURATION_SECONDS: '0',
    SEED_ADMIN_EMAIL: ADMIN_EMAIL,
    SEED_ADMIN_PASSWORD: PASSWORD,
    SUBSCRIPTION_EVENTS_QUEUE: queue,
    SUBSCRIPTION_EVENTS_RETRY_DELAYS_MS: RETRY_DELAYS_MS.join(','),
    // Every simulated client comes from 127.0.0.1: the per-address limits (sign-in failures, 20
    // registrations an hour) would otherwise stop the clients' journeys within the first minute.
    LOGIN_MAX_FAILURES_PER_ADDRESS: '100000',
    LOGIN_MAX_FAILURES_PER_ACCOUNT_ADDRESS: '1000',
    REGISTRATION_MAX_PER_ADDRESS: '100000',
  });
  const catalog = await start('catalog', 'services/catalog/dist/main.js', {
    ...common,
    DATABASE_URL: dbUrl('catalog'),
    CATALOG_SEED: 'true',
  });
  const device = await start('device', 'services/device/dist/main.js', {
    ...common,
    DATABASE_URL: dbUrl('device'),
    CATALOG_URL: catalog.url,
  });
  const billing = await start('billing', 'services/billing/dist/main.js', { ...common, ...bus, DATABASE_URL: dbUrl('billing') });
  const gateway = await start('gateway', 'gateway/dist/main.js', {
    ...common,
    ...redis,
    METRICS_PORT: 'off',
    KEYS_URL: keys.url,
    IDENTITY_URL: identity.url,
    CATALOG_URL: catalog.url,
    DEVICE_URL: device.url,
    BILLING_URL: billing.url,
  });
  gatewayUrl = gateway.url;

  const memoryAtStart = new Map<string, number>();
  for (const [name, p] of processes) memoryAtStart.set(name, await rssMiB(p));

  // Application keys as an operator would make them; the dashboard's role is played by the system key.
  const makeKey = async (scopes: string): Promise<Auth> => {
    const login = await call(
      'setup',
      'POST',
      '/api/Users/Login',
      { key: SYSTEM_KEY, secret: SYSTEM_SECRET },
      { body: { email: ADMIN_EMAIL, password: PASSWORD } },
    );
    const created = await call('setup', 'POST', '/api/ApiKeys', system, {
      token: login.body.token as string,
      body: { name: 'soak app', scopes },
    });
    if (created.status !== 201) throw new Error(`could not make an application key (${created.status}): ${JSON.stringify(created.body)}`);
    adminToken = login.body.token as string;
    return { key: created.body.key as string, secret: created.body.secret as string };
  };
  const app = await makeKey('auth:register auth:login read:devices');
  const firmware = await makeKey('auth:login register:device');
  const writer = await makeKey('write:devices');
  journal.reset(); // setup requests are not part of the figures

  const runMs = minutes * 60_000;
  const startedAt = Date.now();
  console.log(
    `traffic: ${clients} clients for ${minutes} min; outages of ${outageSeconds} s (+${recoverySeconds} s recovery): Redis at 20%, PostgreSQL at 45%, RabbitMQ at 70%`,
  );
  const progress = setInterval(() => console.log(`  ${journal.progressLine(startedAt)}`), 10_000);
  const memorySamples = setInterval(() => {
    memoryLine(processes, startedAt).then(
      (line) => console.log(`  ${line}`),
      () => {}, // a process that just exited is reported by the run itself
    );
  }, MEMORY_SAMPLE_MS);
  // The admin's token is refreshed each minute, before it could expire (JWT_TTL_SECONDS 3600).
  const refresh = setInterval(() => {
    void call(
      'POST /api/Users/Login',
      'POST',
      '/api/Users/Login',
      { key: SYSTEM_KEY, secret: SYSTEM_SECRET },
      { body: { email: ADMIN_EMAIL, password: PASSWORD } },
    ).then((r) => {
      if (typeof r.body.token === 'string') adminToken = r.body.token;
    });
  }, 60_000);
  const outages = Promise.all([
    outage('Redis', runMs * 0.2, startedAt),
    outage('PostgreSQL', runMs * 0.45, startedAt),
    outage('RabbitMQ', runMs * 0.7, startedAt),
  ]);
  const workers = Array.from({ length: clients }, (_, i) => client(i, app, firmware, writer));
  await sleep(runMs);
  stopping = true;
  await Promise.all([outages, ...workers]);
  clearInterval(progress);
  clearInterval(memorySamples);
  clearInterval(refresh);

  // Subscriptions still waiting for their role get a last minute to show it.
  stopping = false;
  let neverArrived = 0;
  for (const { token, subscribedAt } of pending) {
    if (await waitForRole(token, subscribedAt, Date.now() - subscribedAt + 60_000)) journal.roleArrived(Date.now() - subscribedAt);
    else neverArrived++;
  }
  stopping = true;

  const memory = [...processes].map(([name, p]) => ({ name, startMiB: memoryAtStart.get(name)!, endMiB: 0, pid: p.child.pid }));
  for (const entry of memory) entry.endMiB = await rssMiB(processes.get(entry.name)!);
  const report = journal.report({ minutes, clients, outageSeconds, recoverySeconds, neverArrived, memory });
  console.log(`\n${report.text}`);
  await writeFile(`${RESULTS}soak-${stamp}.json`, `${JSON.stringify(report.figures, null, 2)}\n`);
  if (!report.goalsMet) process.exitCode = 1;
} finally {
  await cleanUp();
}
