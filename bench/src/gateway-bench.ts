import { parseArgs } from 'node:util';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import bcrypt from 'bcrypt';
import pg from 'pg';
import { signContext } from '@acs/auth';
import { testServerUrl, uniqueName } from '@acs/testing';
import { startProcess, type ServiceProcess } from './processes.js';
import { runLoad } from './load.js';
import { runWrk, wrkAvailable } from './wrk.js';
import { measure, medianByCpu, row, type Load, type Measured } from './scenario.js';
import { startOtlpSink, type OtlpSink } from './otlp-sink.js';

const HELP = `Gateway benchmark on the real PostgreSQL and Redis, every service its own process.

Usage: npm run bench -- [--seconds N] [--connections N] [--rounds N] [--isolated-only] [--baseline DIR] [--tracing] [--node-load]

  --seconds N       measured seconds per scenario (default 10; plus 2 s warm-up)
  --connections N   concurrent keep-alive connections (default 32; logins use 8)
  --rounds N        rounds of the isolated (stub) scenarios, interleaved; the median is the figure (default 3)
  --isolated-only   only the isolated scenarios (quick iteration on the gateway's own CPU)
  --baseline DIR    another checkout, built (DIR/gateway/dist/main.js): its gateway joins the isolated
                    rounds, interleaved with this one, so a change is compared at the same moment
                    (e.g. git worktree add /tmp/base HEAD && cd /tmp/base && npm ci && npm run build)
  --tracing         one more gateway in the isolated rounds, exporting traces (OTLP http/protobuf to a local
                    sink) with OTEL_TRACES_SAMPLER=parentbased_traceidratio and OTEL_TRACES_SAMPLER_ARG=0.01
                    (issue 20: at most +10 µs of gateway CPU per request over the gateway without tracing)
  --node-load       use the Node load generator even when wrk is installed

Scenarios: GET /api/Dac direct to the catalog, through a plain Node proxy (the floor) and through
the gateway (layer 1); a layer-2 route (key + user JWT) through the gateway; the same requests
against a static stub so only the proxies' own CPU counts; logins against the bcrypt bound.
Environment: DATABASE_URL, REDIS_URL (default: the local servers), BCRYPT_COST (default 11).
Creates and drops its own databases (acs_bench_*) and Redis prefix.`;

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
    rounds: { type: 'string', default: '3' },
    'isolated-only': { type: 'boolean' },
    baseline: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
    'node-load': { type: 'boolean' },
    tracing: { type: 'boolean' },
  },
});
if (values.help) {
  console.log(HELP);
  process.exit(0);
}
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const rounds = Number(values.rounds);
const isolatedOnly = values['isolated-only'] === true;
for (const [name, value] of [
  ['--seconds', seconds],
  ['--connections', connections],
  ['--rounds', rounds],
] as const) {
  if (!Number.isInteger(value) || value < 1) {
    console.error(`${name} must be a whole number of at least 1`);
    process.exit(2);
  }
}
const bcryptCost = Number(process.env.BCRYPT_COST ?? 11);

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const INTERNAL_SECRET = 'bench-internal-secret-0123456789abcdefgh';
const SYSTEM_KEY = 'acs_live_BenchSystemKey00000000000001';
const SYSTEM_SECRET = 'bench-secret-that-is-long-enough-0000000000';
const CATALOG_PATH = '/api/Dac?page=1&pageSize=20';
const base = uniqueName('acs_bench');
const dbUrl = (service: string): string => {
  const url = new URL(testServerUrl('DATABASE_URL'));
  url.pathname = `/${base}_${service}`;
  return url.toString();
};
const redisPrefix = `${base}:`;
const common = { INTERNAL_SECRET, LOG_LEVEL: 'warn', HOST: '127.0.0.1', REDIS_URL: testServerUrl('REDIS_URL'), REDIS_PREFIX: redisPrefix };

const useWrk = wrkAvailable() && !values['node-load'];
const load: Load = (origin, path, headers, secs, request) =>
  useWrk
    ? runWrk(origin + path, headers(), request?.body ? 8 : connections, secs, request)
    : runLoad(origin, path, headers, request?.body ? 8 : connections, secs, request);

const cliEnv = () => ({
  PATH: process.env.PATH ?? '',
  KEYS_DATABASE_URL: dbUrl('keys'),
  REDIS_URL: common.REDIS_URL,
  REDIS_PREFIX: redisPrefix,
});

/** Rate limits on a key with the keys CLI (issue 16); generous enough that the bench never meets them. */
function setLimits(key: string, limits: string): void {
  execFileSync(process.execPath, [`${ROOT}services/keys/dist/cli.js`, 'set-limits', key, '--limits', limits], {
    env: cliEnv(),
    encoding: 'utf8',
  });
}

/** An application key made with the keys CLI, as an operator would. */
function createAppKey(scopes: string): { key: string; secret: string } {
  const out = execFileSync(process.execPath, [`${ROOT}services/keys/dist/cli.js`, 'create', '--scopes', scopes, '--name', 'bench app'], {
    env: { PATH: process.env.PATH ?? '', KEYS_DATABASE_URL: dbUrl('keys'), REDIS_URL: common.REDIS_URL, REDIS_PREFIX: redisPrefix },
    encoding: 'utf8',
  });
  return { key: /X-Api-Key: +(\S+)/.exec(out)![1]!, secret: /X-Api-Secret: +(\S+)/.exec(out)![1]! };
}

const started: ServiceProcess[] = [];
// Closed after the processes: the traced gateway exports its last spans as it stops.
let sink: OtlpSink | null = null;
const start = async (name: string, entry: string, env: Record<string, string>, nodeArgs: string[] = []): Promise<ServiceProcess> => {
  const p = await startProcess(name, entry, env, nodeArgs);
  started.push(p);
  return p;
};
let errors = 0;
const print = (name: string, m: Measured, label?: string): void => {
  errors += m.result.errors;
  console.log(row(name, m, label));
};

try {
  console.log(
    `machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}`,
  );
  console.log(`load generator: ${useWrk ? 'wrk (1 thread)' : 'Node (undici); install wrk for figures less disturbed by the generator'}`);
  const keys = await start('keys', 'services/keys/dist/main.js', {
    ...common,
    DATABASE_URL: dbUrl('keys'),
    SEED_API_KEY: SYSTEM_KEY,
    SEED_API_SECRET: SYSTEM_SECRET,
    SEED_API_SCOPES: 'system:full-access',
  });
  const identity = await start('identity', 'services/identity/dist/main.js', {
    ...common,
    DATABASE_URL: dbUrl('identity'),
    BCRYPT_COST: String(bcryptCost),
    LOGIN_MAX_FAILURES_PER_ADDRESS: '100000',
    LOGIN_MAX_FAILURES_PER_ACCOUNT_ADDRESS: '1000',
  });
  const catalog = await start('catalog', 'services/catalog/dist/main.js', { ...common, DATABASE_URL: dbUrl('catalog') });
  // BENCH_GATEWAY_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the gateway under this load.
  const nodeArgs = (process.env.BENCH_GATEWAY_NODE_ARGS ?? '').split(' ').filter(Boolean);
  // METRICS_PORT 0: the metrics listener runs, as in production, on a free port (two gateways run here).
  const gateway = await start(
    'gateway',
    'gateway/dist/main.js',
    { ...common, METRICS_PORT: '0', KEYS_URL: keys.url, IDENTITY_URL: identity.url, CATALOG_URL: catalog.url },
    nodeArgs,
  );
  const plain = await start('plain proxy', 'bench/dist/plain-proxy.js', { UPSTREAM_URL: catalog.url });

  const app = createAppKey('read:devices auth:register auth:login');
  // The same scopes with two windows: the rate-limit scenario compares it with `app` (no limits) in the same rounds.
  const limitedApp = createAppKey('read:devices auth:register auth:login');
  setLimits(limitedApp.key, '1000000/1s,1000000000/1d');
  const limitedHeaders = () => ({ 'x-api-key': limitedApp.key, 'x-api-secret': limitedApp.secret });
  const email = `bench-${randomBytes(4).toString('hex')}@example.com`;
  const password = `bench-${randomBytes(12).toString('hex')}`;
  const appHeaders = () => ({ 'x-api-key': app.key, 'x-api-secret': app.secret });
  const post = (path: string, body: unknown) =>
    fetch(gateway.url + path, {
      method: 'POST',
      headers: { ...appHeaders(), 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  await post('/api/Users/Register', { email, password, firstName: 'Bench', lastName: 'User' });
  const { token } = (await (await post('/api/Users/Login', { email, password })).json()) as { token: string };
  const signed = (path: string) => () => {
    // For the catalog, as the gateway would sign it. wrk sends these headers for a whole run: a run longer
    // than the context's lifetime (CONTEXT_LIFETIME_SECONDS, 15 s) would be refused by the catalog.
    const ctx = signContext(INTERNAL_SECRET, 'catalog', 'GET', path, { requestId: 'bench', keyId: 'bench', scopes: ['read:devices'] });
    return { 'x-acs-context': ctx.context, 'x-acs-signature': ctx.signature };
  };
  const dashboardHeaders = () => ({ 'x-api-key': SYSTEM_KEY, 'x-api-secret': SYSTEM_SECRET, authorization: `Bearer ${token}` });

  let withRealCatalog: { gateway: number; plain: number } | undefined;
  if (!isolatedOnly) {
    console.log(`warming up (2 s each), then ${seconds} s per scenario, ${connections} connections\n`);
    for (const [target, path, headers] of [
      [catalog, CATALOG_PATH, signed(CATALOG_PATH)],
      [plain, CATALOG_PATH, signed(CATALOG_PATH)],
      [gateway, CATALOG_PATH, appHeaders],
      [gateway, '/api/ApiKeys', dashboardHeaders],
    ] as const) {
      await load(target.url, path, headers, 2);
    }
    const direct = await measure(load, catalog, CATALOG_PATH, signed(CATALOG_PATH), seconds);
    const viaPlain = await measure(load, plain, CATALOG_PATH, signed(CATALOG_PATH), seconds, plain);
    const viaGateway = await measure(load, gateway, CATALOG_PATH, appHeaders, seconds, gateway);
    const layer2 = await measure(load, gateway, '/api/ApiKeys', dashboardHeaders, seconds, gateway);
    console.log('GET /api/Dac (real catalog service and PostgreSQL):');
    print('  direct to catalog', direct);
    print('  plain proxy, no auth', viaPlain, 'proxy CPU');
    print('  gateway, layer 1', viaGateway, 'gateway CPU');
    console.log(
      `  ratio gateway/direct: throughput ${(viaGateway.result.rps / direct.result.rps).toFixed(2)}, p50 +${(viaGateway.result.p50ms - direct.result.p50ms).toFixed(2)} ms, p99 +${(viaGateway.result.p99ms - direct.result.p99ms).toFixed(2)} ms`,
    );
    console.log('GET /api/ApiKeys (layer 2: key + JWT, real keys service):');
    print('  gateway, layer 1 + 2', layer2, 'gateway CPU');
    withRealCatalog = { gateway: viaGateway.cpuUs!, plain: viaPlain.cpuUs! };
  }

  // Isolation: the same response bytes from a static stub, so only the proxies' own CPU counts.
  const page = await (await fetch(catalog.url + CATALOG_PATH, { headers: signed(CATALOG_PATH)() })).text();
  const stub = await start('stub', 'bench/dist/stub-upstream.js', { STUB_BODY: page });
  const plainToStub = await start('plain proxy', 'bench/dist/plain-proxy.js', { UPSTREAM_URL: stub.url });
  const gatewayToStub = await start(
    'gateway',
    'gateway/dist/main.js',
    { ...common, METRICS_PORT: '0', KEYS_URL: keys.url, IDENTITY_URL: identity.url, CATALOG_URL: stub.url, DEVICE_URL: stub.url },
    nodeArgs,
  );
  const baselineEntry = values.baseline ? resolve(values.baseline, 'gateway/dist/main.js') : null;
  const baselineToStub = baselineEntry
    ? await start(
        'baseline gateway',
        baselineEntry,
        { ...common, METRICS_PORT: '0', KEYS_URL: keys.url, IDENTITY_URL: identity.url, CATALOG_URL: stub.url, DEVICE_URL: stub.url },
        nodeArgs,
      )
    : null;
  sink = values.tracing ? await startOtlpSink() : null;
  const tracedToStub = sink
    ? await start(
        'traced gateway',
        'gateway/dist/main.js',
        {
          ...common,
          METRICS_PORT: '0',
          KEYS_URL: keys.url,
          IDENTITY_URL: identity.url,
          CATALOG_URL: stub.url,
          DEVICE_URL: stub.url,
          OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
          OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
          OTEL_TRACES_SAMPLER_ARG: '0.01',
        },
        nodeArgs,
      )
    : null;
  const userHeaders = () => ({ ...appHeaders(), authorization: `Bearer ${token}` });
  const gateways = [gatewayToStub, ...(baselineToStub ? [baselineToStub] : []), ...(tracedToStub ? [tracedToStub] : [])];
  await load(plainToStub.url, CATALOG_PATH, signed(CATALOG_PATH), 2);
  for (const target of gateways) {
    await load(target.url, CATALOG_PATH, appHeaders, 2);
    await load(target.url, CATALOG_PATH, limitedHeaders, 2);
    await load(target.url, '/api/Devices', userHeaders, 2);
  }
  // Rounds interleave the scenarios so that a burst of noise on the machine hits all of them alike.
  const isolated = {
    plain: [] as Measured[],
    layer1: [] as Measured[],
    limited: [] as Measured[],
    layer2: [] as Measured[],
    baseline1: [] as Measured[],
    baseline2: [] as Measured[],
    traced1: [] as Measured[],
    traced2: [] as Measured[],
  };
  console.log(
    `\nisolated: the same ${page.length}-byte page from a static stub, ${rounds} round(s), median shown${baselineToStub ? `; baseline: ${baselineEntry}` : ''}`,
  );
  for (let round = 1; round <= rounds; round++) {
    isolated.plain.push(await measure(load, plainToStub, CATALOG_PATH, signed(CATALOG_PATH), seconds, plainToStub));
    isolated.layer1.push(await measure(load, gatewayToStub, CATALOG_PATH, appHeaders, seconds, gatewayToStub));
    isolated.limited.push(await measure(load, gatewayToStub, CATALOG_PATH, limitedHeaders, seconds, gatewayToStub));
    if (baselineToStub) isolated.baseline1.push(await measure(load, baselineToStub, CATALOG_PATH, appHeaders, seconds, baselineToStub));
    isolated.layer2.push(await measure(load, gatewayToStub, '/api/Devices', userHeaders, seconds, gatewayToStub));
    if (baselineToStub) isolated.baseline2.push(await measure(load, baselineToStub, '/api/Devices', userHeaders, seconds, baselineToStub));
    if (tracedToStub) {
      isolated.traced1.push(await measure(load, tracedToStub, CATALOG_PATH, appHeaders, seconds, tracedToStub));
      isolated.traced2.push(await measure(load, tracedToStub, '/api/Devices', userHeaders, seconds, tracedToStub));
    }
    const cpu = (m: Measured[]) => m.at(-1)!.cpuUs!.toFixed(1);
    const baseline = baselineToStub ? ` (baseline: layer 1 ${cpu(isolated.baseline1)} µs, layer 1 + 2 ${cpu(isolated.baseline2)} µs)` : '';
    const traced = tracedToStub ? ` (tracing 1%: layer 1 ${cpu(isolated.traced1)} µs, layer 1 + 2 ${cpu(isolated.traced2)} µs)` : '';
    console.log(
      `  round ${round}: plain ${cpu(isolated.plain)} µs, layer 1 ${cpu(isolated.layer1)} µs, layer 1 rate-limited key ${cpu(isolated.limited)} µs, layer 1 + 2 ${cpu(isolated.layer2)} µs${baseline}${traced}`,
    );
  }
  if (baselineToStub) {
    print('  baseline gateway layer 1 -> stub', medianByCpu(isolated.baseline1), 'gateway CPU');
    print('  baseline gateway layer 1 + 2 -> stub', medianByCpu(isolated.baseline2), 'gateway CPU');
  }
  if (tracedToStub && sink) {
    print('  gateway with tracing (1% sampled) layer 1 -> stub', medianByCpu(isolated.traced1), 'gateway CPU');
    print('  gateway with tracing (1% sampled) layer 1 + 2 -> stub', medianByCpu(isolated.traced2), 'gateway CPU');
    // Per round, like the rate-limit figure: each difference is between runs that met the same noise.
    for (const [label, on, off] of [
      ['layer 1', isolated.traced1, isolated.layer1],
      ['layer 1 + 2', isolated.traced2, isolated.layer2],
    ] as const) {
      const costs = on.map((m, i) => m.cpuUs! - off[i]!.cpuUs!).sort((a, b) => a - b);
      const cost = costs[Math.floor(costs.length / 2)]!;
      console.log(
        `  goal: tracing on (1% sampled) at most +10 µs, ${label} -> ${cost <= 10 ? 'met' : 'NOT met'} (median of rounds ${cost >= 0 ? '+' : ''}${cost.toFixed(1)} µs; rounds ${costs.map((c) => c.toFixed(1)).join(', ')})`,
      );
    }
    console.log(`  the sink received ${sink.exports()} export request(s), ${(sink.bytes() / 1024).toFixed(0)} KiB`);
  }
  const isoPlain = medianByCpu(isolated.plain);
  const isoLayer1 = medianByCpu(isolated.layer1);
  const isoLayer2 = medianByCpu(isolated.layer2);
  const isoLimited = medianByCpu(isolated.limited);
  print('  plain proxy -> stub', isoPlain, 'proxy CPU');
  print('  gateway layer 1 -> stub', isoLayer1, 'gateway CPU');
  print('  gateway layer 1, rate-limited key -> stub', isoLimited, 'gateway CPU');
  print('  gateway layer 1 + 2 -> stub', isoLayer2, 'gateway CPU');
  console.log(
    `  gateway CPU beyond a plain proxy: layer 1 +${(isoLayer1.cpuUs! - isoPlain.cpuUs!).toFixed(1)} µs, layer 1 + 2 +${(isoLayer2.cpuUs! - isoPlain.cpuUs!).toFixed(1)} µs`,
  );
  // With the catalog and PostgreSQL on the same two cores every process pays for the contention, so that figure is
  // shown beside the plain proxy's of the same scenario rather than judged against the goal (docs/performance.md).
  const withCatalog =
    withRealCatalog === undefined
      ? ''
      : `; with the real catalog ${withRealCatalog.gateway.toFixed(1)} µs, plain proxy ${withRealCatalog.plain.toFixed(1)} µs (shared cores)`;
  console.log(
    `  goal: gateway CPU per proxied request with layer-1 auth under 80 µs -> ${isoLayer1.cpuUs! < 80 ? 'met' : 'NOT met'} isolated (${isoLayer1.cpuUs!.toFixed(1)} µs)${withCatalog}`,
  );
  // Per round, so each difference is between runs that met the same noise (issue 16: at most +5 µs).
  const limitCosts = isolated.limited.map((m, i) => m.cpuUs! - isolated.layer1[i]!.cpuUs!).sort((a, b) => a - b);
  const limitCost = limitCosts[Math.floor(limitCosts.length / 2)]!;
  console.log(
    `  goal: a rate-limited key at most +5 µs over an unlimited one -> ${limitCost <= 5 ? 'met' : 'NOT met'} (median of rounds ${limitCost >= 0 ? '+' : ''}${limitCost.toFixed(1)} µs; rounds ${limitCosts.map((c) => c.toFixed(1)).join(', ')})`,
  );
  console.log(
    `  goal: layer-2 request under 100 µs -> ${isoLayer2.cpuUs! < 100 ? 'met' : 'NOT met'} isolated (${isoLayer2.cpuUs!.toFixed(1)} µs)`,
  );

  if (!isolatedOnly) {
    // Logins: bounded by bcrypt (libuv's 4 threads on however many cores there are).
    const hash = await bcrypt.hash(password, bcryptCost);
    const t0 = performance.now();
    for (let i = 0; i < 5; i++) await bcrypt.compare(password, hash);
    const hashMs = (performance.now() - t0) / 5;
    const bound = (Math.min(os.cpus().length, 4) * 1000) / hashMs;
    const logins = await measure(load, gateway, '/api/Users/Login', appHeaders, seconds, undefined, {
      method: 'POST',
      body: JSON.stringify({ email, password }),
    });
    console.log(
      `\nPOST /api/Users/Login (bcrypt cost ${bcryptCost}: ${hashMs.toFixed(0)} ms per hash here, bound ≈ ${bound.toFixed(1)} logins/s on ${Math.min(os.cpus().length, 4)} cores):`,
    );
    print('  logins through the gateway', logins);
    console.log(`  ${((logins.result.rps / bound) * 100).toFixed(0)}% of the bcrypt bound`);
  }
  if (errors > 0) process.exitCode = 1;
} finally {
  for (const p of started.reverse()) await p.stop();
  await sink?.close();
  const admin = new pg.Client({ connectionString: testServerUrl('DATABASE_URL') });
  await admin.connect();
  for (const service of ['keys', 'identity', 'catalog']) await admin.query(`DROP DATABASE IF EXISTS "${base}_${service}" WITH (FORCE)`);
  await admin.end();
}
