import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { basename, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import bcrypt from 'bcrypt';
import pg from 'pg';
import { signContext } from '@acs/auth';
import { apiKeyCacheKey } from '@acs/contracts';
import { testServerUrl, uniqueName } from '@acs/testing';
import { startProcess, type ServiceProcess } from './processes.js';
import { runLoad } from './load.js';
import { runWrk, wrkAvailable } from './wrk.js';
import { measure, median, medianByCpu, row, withSign, type Load, type Measured } from './scenario.js';
import { startOtlpSink, type OtlpSink } from './otlp-sink.js';
import { startOwnRedis } from './own-redis.js';
import { isProxyUnderTest, pinBench, pinProxy } from './pinning.js';
import { credentialsIn, startGatewaySetup, type GatewaySetup } from './gateway-setup.js';
import { benchOptions, keysBusEnv, seededKeysEnv } from './bench-options.js';
import { runSlices, sliceSetupOf, summarizeSlices, type Slice, type SliceContender } from './slices.js';
import { processCpuSeconds } from './process-cpu.js';

const HELP = `Gateway benchmark on the real PostgreSQL and Redis, every service its own process.

Usage: npm run bench -- [--seconds N] [--connections N] [--rounds N] [--isolated-only] [--baseline DIR] [--tracing] [--node-load] [--floor]

  --seconds N       measured seconds per scenario (default 10; plus 2 s warm-up)
  --connections N   concurrent keep-alive connections (default 32; logins use 8)
  --rounds N        rounds of the isolated (stub) scenarios, interleaved; the median is the figure (default 3)
  --isolated-only   only the isolated scenarios (quick iteration on the gateway's own CPU)
  --baseline DIR    another checkout, built (repeatable): its gateway, keys and identity services (its own
                    databases and Redis prefix) join the isolated rounds, interleaved with this one, so a
                    change is compared at the same moment (e.g. git worktree add /tmp/base b727834, copy
                    node_modules there, npm run build)
  --tracing         one more gateway in the isolated rounds, exporting traces (OTLP http/protobuf to a local
                    sink) with OTEL_TRACES_SAMPLER=parentbased_traceidratio and OTEL_TRACES_SAMPLER_ARG=0.01
                    (issue 20: at most +10 µs of gateway CPU per request over the gateway without tracing)

Every setup runs on a redis-server of the bench's own (a spare port), so Redis CPU per request (INFO cpu,
used_cpu_sys + used_cpu_user, before and after each run) is the bench's alone.
  --node-load       use the Node load generator even when wrk is installed
  --pin             the proxy under test alone on the last CPU, everything else (wrk, stub, Redis, services)
                    on the others (taskset): steadier rounds for a feature's few µs
  --floor           one more proxy in the isolated rounds (bench/src/floor-proxy.ts): the plain proxy plus only
                    what the spec makes a limited request cost (one Redis round trip for the record and a
                    counter, the secret's hash, the signed context, the request id and RateLimit headers),
                    with the rate-limited key; prints it against the plain proxy and the gateway against it
  --scenarios LIST  only these isolated scenarios, by name, comma-separated (e.g. "layer 1,layer 1 quota"):
                    more rounds of a feature and its pair in the same time; the idempotency replay is left out
  --slices "A,B"    instead of the isolated rounds: A and B in alternating slices of --slice-ms (default 100) from
                    one load generator, --rounds runs of --seconds each; A and B are scenario names, "plain",
                    "floor", "floor:round-trip" (the floor's Redis round trip and forward only) or "floor:forward"
                    (its forward only: request id and dispatch). Adjacent slices meet the same noise, so a pair's difference is a feature's cost on a
                    noisy machine (bench/src/slices.ts); use with --pin. "NAME@baseline" is the scenario served by
                    the first --baseline checkout's gateway ("@baseline2" the second): a change against the commit
                    before it, by turns in the same run (e.g. "layer 1 limited,layer 1 limited@baseline"). Two
                    processes, each with its own lifelong speed (5 µs apart on one machine): measure the zero too,
                    the same pair with --baseline a build of this very commit
  --processes N     N processes of each proxy in the isolated rounds (the plain proxy, the floor, each setup's
                    gateway), round r using the r-th of each in turn (default 1): a process runs fast or slow for
                    its whole life, so a ratio between two programs is a median over several of each

Scenarios: GET /api/Dac direct to the catalog, through a plain Node proxy (the floor) and through
the gateway (layer 1); a layer-2 route (key + user JWT) through the gateway; the same requests
against a static stub so only the proxies' own CPU counts (layer 1 and layer 1 + 2, each with a key
without limits and with a rate-limited key); logins against the bcrypt bound.
Environment: DATABASE_URL, REDIS_URL (default: the local servers), BCRYPT_COST (default 11).
Creates and drops its own databases (acs_bench_*) and Redis prefix.`;

const values = benchOptions(HELP, {
  seconds: { type: 'string', default: '10' },
  connections: { type: 'string', default: '32' },
  rounds: { type: 'string', default: '3' },
  'isolated-only': { type: 'boolean' },
  baseline: { type: 'string', multiple: true },
  'node-load': { type: 'boolean' },
  tracing: { type: 'boolean' },
  scenarios: { type: 'string' },
  pin: { type: 'boolean' },
  floor: { type: 'boolean' },
  processes: { type: 'string', default: '1' },
  slices: { type: 'string' },
  'slice-ms': { type: 'string', default: '100' },
});
/** --scenarios: the isolated scenarios to run, by name; null runs them all. */
const selectedScenarios = values.scenarios === undefined ? null : new Set(values.scenarios.split(',').map((name) => name.trim()));
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const rounds = Number(values.rounds);
const processCount = Number(values.processes);
const sliceNames = values.slices === undefined ? null : values.slices.split(',').map((name) => name.trim());
const sliceMs = Number(values['slice-ms']);
if (sliceNames !== null && sliceNames.length !== 2) {
  console.error('--slices takes two names: "A,B"');
  process.exit(2);
}
const isolatedOnly = values['isolated-only'] === true;
for (const [name, value] of [
  ['--seconds', seconds],
  ['--connections', connections],
  ['--rounds', rounds],
  ['--processes', processCount],
  ['--slice-ms', sliceMs],
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
// Before anything starts: what the bench starts inherits its CPUs.
const pinning = pinBench(values.pin === true);
const ownRedis = await startOwnRedis();
const common = { INTERNAL_SECRET, LOG_LEVEL: 'warn', HOST: '127.0.0.1', REDIS_URL: ownRedis.url, REDIS_PREFIX: redisPrefix };

const useWrk = wrkAvailable() && !values['node-load'];
const load: Load = (origin, path, headers, secs, request) =>
  useWrk
    ? runWrk(origin + path, headers(), request?.body ? 8 : connections, secs, request)
    : runLoad(origin, path, headers, request?.body ? 8 : connections, secs, request);

/** An application key made with the keys CLI, as an operator would. */
function createAppKey(scopes: string): { key: string; secret: string } {
  const out = execFileSync(process.execPath, [`${ROOT}services/keys/dist/cli.js`, 'create', '--scopes', scopes, '--name', 'bench app'], {
    env: { PATH: process.env.PATH ?? '', KEYS_DATABASE_URL: dbUrl('keys'), REDIS_URL: common.REDIS_URL, REDIS_PREFIX: redisPrefix },
    encoding: 'utf8',
  });
  return credentialsIn(out);
}

const started: ServiceProcess[] = [];
// Closed after the processes: the traced gateway exports its last spans as it stops.
let sink: OtlpSink | null = null;
const start = async (name: string, entry: string, env: Record<string, string>, nodeArgs: string[] = []): Promise<ServiceProcess> => {
  const p = await startProcess(name, entry, env, nodeArgs);
  started.push(p);
  if (pinning && isProxyUnderTest(name) && p.child.pid !== undefined) pinProxy(pinning, p.child.pid);
  return p;
};
let errors = 0;
/** `refused`: a scenario whose every answer is a refusal by design (it errs when one is not). */
const print = (name: string, m: Measured, label?: string, refused = false): void => {
  errors += refused ? m.result.requests - m.result.errors : m.result.errors;
  console.log(row(name, m, label));
};

interface RedisMeasured extends Measured {
  /** The bench Redis' CPU per request of this run, in µs. */
  redisUs: number;
  /** Of which Redis executing commands (INFO commandstats), in µs per request. */
  commandUs: number;
}

/** measure() with the gateway's (or proxy's) own CPU and the bench Redis' CPU over the same run. */
async function measureWithRedis(
  target: ServiceProcess,
  path: string,
  headers: () => Record<string, string>,
  secs: number,
  request?: { method?: 'GET' | 'POST'; body?: string },
  refused = false,
): Promise<RedisMeasured> {
  ownRedis.commandMicroseconds();
  const before = ownRedis.cpuSeconds();
  const measured = await measure(load, target, path, headers, secs, target, request);
  const redisUs = ((ownRedis.cpuSeconds() - before) * 1e6) / Math.max(1, measured.result.requests);
  const commandUs = ownRedis.commandMicroseconds() / Math.max(1, measured.result.requests);
  // A scenario of refusals (junk credentials) errs when a request was NOT refused.
  errors += refused ? measured.result.requests - measured.result.errors : measured.result.errors;
  return { ...measured, redisUs, commandUs };
}

/** A key's two headers, as clients send them. */
const keyHeaders = (c: { key: string; secret: string }): Record<string, string> => ({ 'x-api-key': c.key, 'x-api-secret': c.secret });

/** The floor's parts (floor-proxy.ts, FLOOR_PARTS), each a --slices contender named "floor:<part>". */
const FLOOR_PARTS = ['round-trip', 'forward'] as const;

/**
 * --floor: the floor proxy (floor-proxy.ts) on the bench's Redis, reading the setup's rate-limited key's record;
 * with `parts`, only those parts of the spec's minimum.
 */
async function startFloor(
  setup: GatewaySetup,
  stubUrl: string,
  nodeArgs: string[],
  parts = 'all',
): Promise<{ proxy: ServiceProcess; headers: () => Record<string, string> }> {
  const limited = setup.limited;
  if (!limited) throw new Error("--floor needs the setup's rate-limited key");
  const proxy = await start(
    'floor proxy',
    'bench/dist/floor-proxy.js',
    {
      UPSTREAM_URL: stubUrl,
      REDIS_URL: ownRedis.url,
      INTERNAL_SECRET,
      FLOOR_RECORD_KEY: `${setup.redisPrefix}${apiKeyCacheKey(limited.key)}`,
      FLOOR_PARTS: parts,
    },
    nodeArgs,
  );
  return { proxy, headers: () => keyHeaders(limited) };
}

/** --floor: what the spec's minimum costs over the plain proxy, and the gateway over that minimum, round by round. */
function printFloor(setup: GatewaySetup, runs: Map<string, RedisMeasured[]>, plain: RedisMeasured[], floor: RedisMeasured[]): void {
  const floorRatios = floor.map((run, i) => run.cpuUs! / plain[i]!.cpuUs!);
  const floorExtra = floor.map((run, i) => run.cpuUs! - plain[i]!.cpuUs!);
  console.log(
    `  floor: CPU ${median(floorRatios).toFixed(2)}x the plain proxy (+${median(floorExtra).toFixed(1)} µs; rounds ${floorRatios.map((r) => r.toFixed(2)).join(', ')})`,
  );
  for (const name of ['layer 1 limited', 'layer 1 + 2 limited']) {
    const list = runs.get(`${setup.label}|${name}`);
    if (!list) continue;
    const ratios = list.map((run, i) => run.cpuUs! / floor[i]!.cpuUs!);
    const extra = list.map((run, i) => run.cpuUs! - floor[i]!.cpuUs!);
    console.log(
      `  ${setup.label}, ${name}: CPU ${median(ratios).toFixed(2)}x the floor (+${median(extra).toFixed(1)} µs; rounds ${ratios.map((r) => r.toFixed(2)).join(', ')})`,
    );
  }
}

interface Scenario {
  name: string;
  path: string;
  headers: () => Record<string, string>;
  /** Every answer is a refusal (401), by design. */
  refused?: boolean;
}

/** The app key with a secret whose checksum is wrong (issue 31.1): refused before the Redis read. */
function junkSecret(secret: string): string {
  const last = secret.at(-1) === 'A' ? 'B' : 'A';
  return secret.slice(0, -1) + last;
}

/**
 * Layer 1 and layer 1 + 2, each with a key without limits, with a rate-limited one (when the checkout has limits)
 * and with a key of a user whose plan quota counts its requests (issue 29; the quota's cost is the difference
 * to the same layer without a quota).
 */
function scenariosOf(setup: GatewaySetup): Scenario[] {
  const list = allScenariosOf(setup);
  return selectedScenarios === null ? list : list.filter((scenario) => selectedScenarios.has(scenario.name));
}

function allScenariosOf(setup: GatewaySetup): Scenario[] {
  const list: Scenario[] = [
    { name: 'layer 1', path: CATALOG_PATH, headers: () => keyHeaders(setup.app) },
    { name: 'layer 1 + 2', path: '/api/Devices', headers: () => ({ ...keyHeaders(setup.app), authorization: `Bearer ${setup.token}` }) },
  ];
  const withoutSession = setup.tokenWithoutSession;
  if (withoutSession)
    list.push({
      name: 'layer 1 + 2 no session',
      path: '/api/Devices',
      headers: () => ({ ...keyHeaders(setup.app), authorization: `Bearer ${withoutSession}` }),
    });
  const owned = setup.owned;
  list.push(
    { name: 'layer 1 quota', path: CATALOG_PATH, headers: () => keyHeaders(owned) },
    { name: 'layer 1 + 2 quota', path: '/api/Devices', headers: () => ({ ...keyHeaders(owned), authorization: `Bearer ${setup.token}` }) },
  );
  const allowListed = setup.allowListed;
  if (allowListed) {
    list.push(
      { name: 'layer 1 allow-list', path: CATALOG_PATH, headers: () => keyHeaders(allowListed) },
      {
        name: 'junk credentials',
        path: CATALOG_PATH,
        headers: () => keyHeaders({ ...setup.app, secret: junkSecret(setup.app.secret) }),
        refused: true,
      },
    );
  }
  const limited = setup.limited;
  if (limited) {
    list.splice(1, 0, { name: 'layer 1 limited', path: CATALOG_PATH, headers: () => keyHeaders(limited) });
    list.push({
      name: 'layer 1 + 2 limited',
      path: '/api/Devices',
      headers: () => ({ ...keyHeaders(limited), authorization: `Bearer ${setup.token}` }),
    });
  }
  return list;
}

const fmt = (n: number): string => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '∞');

/**
 * A baseline's label: its folder's name, numbered when another setup has it already (`--baseline .` twice, to
 * see several gateway processes of one checkout): the rounds are kept by label, so two alike would be mixed.
 */
function baselineLabel(dir: string, setups: readonly GatewaySetup[]): string {
  const label = `baseline ${basename(resolve(dir))}`;
  const taken = setups.filter((setup) => setup.label === label || setup.label.startsWith(`${label} #`)).length;
  return taken === 0 ? label : `${label} #${taken + 1}`;
}

/** Issue 25's goals for this checkout, judged on the median of rounds. */
function printGoals(setup: GatewaySetup, runs: Map<string, RedisMeasured[]>, plain: RedisMeasured[]): void {
  for (const scenario of scenariosOf(setup)) {
    const list = runs.get(`${setup.label}|${scenario.name}`)!;
    const redisUs = median(list.map((run) => run.redisUs));
    console.log(
      `  goal: Redis CPU at most 6 µs per request, ${scenario.name} -> ${redisUs <= 6 ? 'met' : 'NOT met'} (${redisUs.toFixed(1)} µs)`,
    );
  }
  for (const name of ['layer 1 limited', 'layer 1 + 2 limited']) {
    const list = runs.get(`${setup.label}|${name}`);
    if (!list) continue;
    // Per round: each ratio is between runs that met the same noise.
    const cpu = list.map((run, i) => run.cpuUs! / plain[i]!.cpuUs!);
    const rps = median(list.map((run, i) => run.result.rps / plain[i]!.result.rps));
    const ratio = median(cpu);
    console.log(
      `  goal: gateway CPU at most 1.1x the plain proxy, ${name} -> ${ratio <= 1.1 ? 'met' : 'NOT met'} (${ratio.toFixed(2)}x; rounds ${cpu.map((c) => c.toFixed(2)).join(', ')}); throughput at least 0.8x -> ${rps >= 0.8 ? 'met' : 'NOT met'} (${rps.toFixed(2)}x)`,
    );
  }
  printQuotaBudget(setup, runs);
  printSessionBudget(setup, runs);
  printKeyProtectionFigures(setup, runs);
}

/** Issue 32's budget for the session check: layer 1 + 2 with a token naming a session against the same user's token without one. */
function printSessionBudget(setup: GatewaySetup, runs: Map<string, RedisMeasured[]>): void {
  const withSession = runs.get(`${setup.label}|layer 1 + 2`);
  const without = runs.get(`${setup.label}|layer 1 + 2 no session`);
  if (!withSession || !without) return;
  const redisRounds = withSession.map((run, i) => run.redisUs - without[i]!.redisUs);
  const gatewayRounds = withSession.map((run, i) => run.cpuUs! - without[i]!.cpuUs!);
  const redis = median(redisRounds);
  const gateway = median(gatewayRounds);
  console.log(
    `  budget: the session check on layer 1 + 2 (3 ended sessions on the record): Redis ${withSign(redis)} µs (at most +1: ${redis <= 1 ? 'met' : 'NOT met'}; rounds ${redisRounds.map((n) => n.toFixed(1)).join(', ')}), gateway ${withSign(gateway)} µs (at most +3: ${gateway <= 3 ? 'met' : 'NOT met'}; rounds ${gatewayRounds.map((n) => n.toFixed(1)).join(', ')})`,
  );
}

/**
 * Issue 31: the allow-list against layer 1 without one (the budget: Redis at most +1 µs, gateway at most +3 µs), and
 * a junk credential's cost against a real request's.
 */
function printKeyProtectionFigures(setup: GatewaySetup, runs: Map<string, RedisMeasured[]>): void {
  const layer1 = runs.get(`${setup.label}|layer 1`);
  const allowList = runs.get(`${setup.label}|layer 1 allow-list`);
  const junk = runs.get(`${setup.label}|junk credentials`);
  if (!layer1 || !allowList || !junk) return;
  const redis = median(allowList.map((run, i) => run.redisUs - layer1[i]!.redisUs));
  const gateway = median(allowList.map((run, i) => run.cpuUs! - layer1[i]!.cpuUs!));
  console.log(
    `  budget: the IP allow-list (5 ranges) on layer 1: Redis ${withSign(redis)} µs (at most +1: ${redis <= 1 ? 'met' : 'NOT met'}), gateway ${withSign(gateway)} µs (at most +3: ${gateway <= 3 ? 'met' : 'NOT met'}; rounds ${allowList.map((run, i) => (run.cpuUs! - layer1[i]!.cpuUs!).toFixed(1)).join(', ')})`,
  );
  const ratio = median(junk.map((run, i) => run.cpuUs! / layer1[i]!.cpuUs!));
  const junkRedis = median(junk.map((run) => run.redisUs));
  console.log(
    `  junk credentials (wrong checksum): gateway ${median(junk.map((run) => run.cpuUs!)).toFixed(1)} µs, Redis ${junkRedis.toFixed(1)} µs per request; ${ratio.toFixed(2)}x a real layer-1 request's gateway CPU (less than a real request: ${ratio < 1 ? 'met' : 'NOT met'})`,
  );
}

/**
 * Issue 31's idempotency path on this checkout: a POST with an Idempotency-Key answered from Redis (a replay:
 * read the body, hash it, one script, write the kept answer), round by round against GET layer 1. The first
 * request of a key (claim, forward, keep) costs one round trip more than a plain write: measured as the replay's
 * Redis share. Requests without the header are the other rows, unchanged (one header lookup).
 */
async function idempotencyReplay(setup: GatewaySetup, rounds: number, secs: number): Promise<string> {
  const email = `bench-idem-${randomBytes(4).toString('hex')}@example.com`;
  const password = `bench-${randomBytes(12).toString('hex')}`;
  const keyHeaders = { 'x-api-key': setup.app.key, 'x-api-secret': setup.app.secret, 'content-type': 'application/json' };
  const body = JSON.stringify({ email, password });
  await fetch(`${setup.gateway.url}/api/Users/Register`, {
    method: 'POST',
    headers: keyHeaders,
    body: JSON.stringify({ email, password, firstName: 'Bench', lastName: 'Idem' }),
  });
  const headers = () => ({ ...keyHeaders, 'idempotency-key': 'bench-login-1' });
  const first = await fetch(`${setup.gateway.url}/api/Users/Login`, { method: 'POST', headers: headers(), body });
  if (first.status !== 200) throw new Error(`bench idempotent login: ${first.status} ${await first.text()}`);
  await measureWithRedis(setup.gateway, '/api/Users/Login', headers, 2, { method: 'POST', body });
  const runs: RedisMeasured[] = [];
  for (let round = 0; round < rounds; round++)
    runs.push(await measureWithRedis(setup.gateway, '/api/Users/Login', headers, secs, { method: 'POST', body }));
  const m = medianByCpu(runs) as RedisMeasured;
  print(`  ${setup.label}, POST replayed (Idempotency-Key)`, m, 'gateway CPU');
  const redisUs = median(runs.map((run) => run.redisUs));
  return `| ${setup.label} | layer 1 POST replayed (Idempotency-Key) | ${m.cpuUs!.toFixed(1)} | | ${redisUs.toFixed(1)} | ${median(runs.map((run) => run.commandUs)).toFixed(1)} | ${m.result.rps.toFixed(0)} | | | |`;
}

/** Issue 29's budget for the quota: per layer, the quota's scenario against the same layer without one, round by round. */
function printQuotaBudget(setup: GatewaySetup, runs: Map<string, RedisMeasured[]>): void {
  for (const layer of ['layer 1', 'layer 1 + 2']) {
    const without = runs.get(`${setup.label}|${layer}`);
    const quota = runs.get(`${setup.label}|${layer} quota`);
    if (!without || !quota) continue;
    const redis = median(quota.map((run, i) => run.redisUs - without[i]!.redisUs));
    const gateway = median(quota.map((run, i) => run.cpuUs! - without[i]!.cpuUs!));
    console.log(
      `  budget: the quota on ${layer}: Redis ${withSign(redis)} µs (at most +1: ${redis <= 1 ? 'met' : 'NOT met'}; rounds ${quota.map((run, i) => (run.redisUs - without[i]!.redisUs).toFixed(1)).join(', ')}), gateway ${withSign(gateway)} µs (at most +3: ${gateway <= 3 ? 'met' : 'NOT met'}; rounds ${quota.map((run, i) => (run.cpuUs! - without[i]!.cpuUs!).toFixed(1)).join(', ')})`,
    );
  }
}

/** A --slices contender by name: "plain", "floor", a part of the floor or a scenario of a setup (served by its gateway). */
async function sliceContender(
  name: string,
  setups: readonly GatewaySetup[],
  plain: ServiceProcess,
  stubUrl: string,
  plainNodeArgs: string[],
  plainHeaders: () => Record<string, string>,
): Promise<SliceContender> {
  if (name === 'plain') return { name, process: plain, path: CATALOG_PATH, headers: plainHeaders };
  const floorParts = name === 'floor' ? 'all' : FLOOR_PARTS.find((part) => name === `floor:${part}`);
  if (floorParts !== undefined) {
    const floor = await startFloor(setups[0]!, stubUrl, plainNodeArgs, floorParts);
    return { name, process: floor.proxy, path: CATALOG_PATH, headers: floor.headers };
  }
  const { scenario: scenarioName, setup } = sliceSetupOf(name, setups);
  const scenario = allScenariosOf(setup).find((s) => s.name === scenarioName);
  if (!scenario) {
    const choices = [...allScenariosOf(setup).map((s) => s.name), 'plain', 'floor', ...FLOOR_PARTS.map((part) => `floor:${part}`)];
    throw new Error(`--slices: no scenario "${name}" (one of: ${choices.join(', ')})`);
  }
  return { name, process: setup.gateway, path: scenario.path, headers: scenario.headers };
}

/** A --slices summary line, and the verdict the pair answers: a feature's budget, or issue 25's 1.1x. */
function printSlices(label: string, a: SliceContender, b: SliceContender, slices: readonly Slice[]): void {
  const s = summarizeSlices(slices);
  console.log(
    `  ${label}: ${a.name} ${s.cpuUs[0].toFixed(1)} µs (${s.rps[0].toFixed(0)} req/s), ${b.name} ${s.cpuUs[1].toFixed(1)} µs (${s.rps[1].toFixed(0)} req/s); pairs (${s.pairs}): ${withSign(s.difference)} µs (quartiles ${withSign(s.quartiles[0])} to ${withSign(s.quartiles[1])}), ${s.ratio.toFixed(3)}x; Redis ${s.redisUs[0].toFixed(1)} / ${s.redisUs[1].toFixed(1)} µs, pairs ${withSign(s.redisDifference)} µs${s.errors > 0 ? `; ${s.errors} errors` : ''}`,
  );
  errors += s.errors;
  if (label !== 'all') return;
  if (a.process === b.process)
    console.log(
      `  budget: ${a.name} (the feature) over ${b.name}: gateway at most +3 µs a request -> ${s.difference <= 3 ? 'met' : 'NOT met'} (${withSign(s.difference)} µs); Redis at most +1 µs -> ${s.redisDifference <= 1 ? 'met' : 'NOT met'} (${withSign(s.redisDifference)} µs)`,
    );
  else if (b.name.includes('@baseline'))
    console.log(
      `  change: ${a.name} against ${b.name}, by turns in one run: gateway ${withSign(s.difference)} µs a request (${s.ratio.toFixed(3)}x), Redis ${withSign(s.redisDifference)} µs`,
    );
  else if (b.name === 'plain')
    console.log(
      `  goal: ${a.name}: gateway CPU at most 1.1x the plain proxy -> ${s.ratio <= 1.1 ? 'met' : 'NOT met'} (${s.ratio.toFixed(3)}x); throughput at least 0.8x -> ${s.rps[0] / s.rps[1] >= 0.8 ? 'met' : 'NOT met'} (${(s.rps[0] / s.rps[1]).toFixed(2)}x)`,
    );
}

/** --slices: --rounds runs of --seconds, each summarized, then all their pairs together. */
async function sliceRuns(
  names: readonly string[],
  setups: readonly GatewaySetup[],
  plain: ServiceProcess,
  stubUrl: string,
  plainNodeArgs: string[],
  plainHeaders: () => Record<string, string>,
): Promise<void> {
  const a = await sliceContender(names[0]!, setups, plain, stubUrl, plainNodeArgs, plainHeaders);
  const b = await sliceContender(names[1]!, setups, plain, stubUrl, plainNodeArgs, plainHeaders);
  const options = { seconds, sliceMs, connections, redisCpuSeconds: () => processCpuSeconds(ownRedis.pid) };
  await runSlices([a, b], { ...options, seconds: 3 });
  console.log(
    `\nslices: ${a.name} and ${b.name} by turns, ${sliceMs} ms each, ${rounds} run(s) of ${seconds} s, ${connections} connections`,
  );
  const all: Slice[] = [];
  for (let round = 1; round <= rounds; round++) {
    const slices = await runSlices([a, b], options);
    all.push(...slices);
    printSlices(`run ${round}`, a, b, slices);
  }
  printSlices('all', a, b, all);
}

try {
  console.log(
    `machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}`,
  );
  console.log(`load generator: ${useWrk ? 'wrk (1 thread)' : 'Node (undici); install wrk for figures less disturbed by the generator'}`);
  if (pinning) console.log(`pinned: the proxies under test on CPU ${pinning.proxies}, everything else on CPU ${pinning.rest}`);
  const keys = await start('keys', 'services/keys/dist/main.js', {
    ...common,
    ...keysBusEnv(base),
    ...seededKeysEnv(dbUrl('keys'), { key: SYSTEM_KEY, secret: SYSTEM_SECRET }),
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
  }

  // Isolation: the same response bytes from a static stub, so only the proxies' own CPU counts.
  const page = await (await fetch(catalog.url + CATALOG_PATH, { headers: signed(CATALOG_PATH)() })).text();
  const stub = await start('stub', 'bench/dist/stub-upstream.js', { STUB_BODY: page });
  // BENCH_PLAIN_NODE_ARGS: the same for the plain proxy (a profile to hold the gateway's against).
  const plainNodeArgs = (process.env.BENCH_PLAIN_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const plainToStub = await start('plain proxy', 'bench/dist/plain-proxy.js', { UPSTREAM_URL: stub.url }, plainNodeArgs);
  sink = values.tracing ? await startOtlpSink() : null;
  const setupOptions = (label: string, root: string, tag: string, gatewayEnv?: Record<string, string>) => ({
    label,
    root,
    tag: `${base}_${tag}`,
    dbUrl: (name: string) => dbUrl(name.slice(base.length + 1)),
    redisUrl: ownRedis.url,
    stubUrl: stub.url,
    internalSecret: INTERNAL_SECRET,
    bcryptCost: 4,
    start,
    nodeArgs,
    ...(gatewayEnv ? { gatewayEnv } : {}),
  });
  const setups: GatewaySetup[] = [await startGatewaySetup(setupOptions('this', ROOT, 'this'))];
  for (const [i, dir] of (values.baseline ?? []).entries()) {
    setups.push(await startGatewaySetup(setupOptions(baselineLabel(dir, setups), resolve(dir), `base${i}`)));
  }
  if (sink) {
    const tracing = {
      OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.01',
    };
    setups.push(await startGatewaySetup(setupOptions('this, tracing 1%', ROOT, 'traced', tracing)));
  }
  if (sliceNames !== null)
    await sliceRuns(
      sliceNames,
      setups.slice(0, 1 + (values.baseline ?? []).length),
      plainToStub,
      stub.url,
      plainNodeArgs,
      signed(CATALOG_PATH),
    );
  else {
    // --processes: round r uses the r-th process of each proxy, in turn.
    const plainProxies = [plainToStub];
    while (plainProxies.length < processCount)
      plainProxies.push(await start('plain proxy', 'bench/dist/plain-proxy.js', { UPSTREAM_URL: stub.url }, plainNodeArgs));
    const gateways = new Map<GatewaySetup, ServiceProcess[]>();
    for (const setup of setups) {
      const list = [setup.gateway];
      while (list.length < processCount) list.push(await setup.anotherGateway());
      gateways.set(setup, list);
    }
    const floors: { proxy: ServiceProcess; headers: () => Record<string, string> }[] = [];
    while (values.floor && floors.length < processCount) floors.push(await startFloor(setups[0]!, stub.url, plainNodeArgs));
    const inTurn = <T>(list: readonly T[], round: number): T => list[(round - 1) % list.length]!;
    const plainScenario = (secs: number, round: number) =>
      measureWithRedis(inTurn(plainProxies, round), CATALOG_PATH, signed(CATALOG_PATH), secs);
    const floorScenario =
      floors.length === 0
        ? null
        : (secs: number, round: number) => {
            const floor = inTurn(floors, round);
            return measureWithRedis(floor.proxy, CATALOG_PATH, floor.headers, secs);
          };
    // Warm-up: every process once.
    for (let round = 1; round <= processCount; round++) {
      await plainScenario(2, round);
      await floorScenario?.(2, round);
      for (const setup of setups)
        for (const scenario of scenariosOf(setup))
          await measureWithRedis(inTurn(gateways.get(setup)!, round), scenario.path, scenario.headers, 2, undefined, scenario.refused);
    }
    // Rounds interleave the setups and scenarios so that a burst of noise on the machine hits all of them alike.
    const plainRuns: RedisMeasured[] = [];
    const floorRuns: RedisMeasured[] = [];
    const runs = new Map<string, RedisMeasured[]>();
    console.log(
      `\nisolated: the same ${page.length}-byte page from a static stub, ${rounds} round(s)${processCount > 1 ? `, ${processCount} processes of each proxy in turn` : ''}, median shown; Redis: ${ownRedis.url} (the bench's own)`,
    );
    // Even rounds run the setups and scenarios in reverse: a pair compared round by round (a feature against the
    // same layer without it) then meets the other's position too (what ran just before it, how warm Redis is).
    const inRoundOrder = <T>(list: T[], round: number): T[] => (round % 2 === 0 ? [...list].reverse() : list);
    for (let round = 1; round <= rounds; round++) {
      plainRuns.push(await plainScenario(seconds, round));
      const parts = [`plain ${plainRuns.at(-1)!.cpuUs!.toFixed(1)} µs`];
      if (floorScenario) {
        floorRuns.push(await floorScenario(seconds, round));
        parts.push(`floor ${floorRuns.at(-1)!.cpuUs!.toFixed(1)} µs`);
      }
      for (const setup of inRoundOrder(setups, round)) {
        const figures: string[] = [];
        for (const scenario of inRoundOrder(scenariosOf(setup), round)) {
          const id = `${setup.label}|${scenario.name}`;
          const gateway = inTurn(gateways.get(setup)!, round);
          const measured = await measureWithRedis(gateway, scenario.path, scenario.headers, seconds, undefined, scenario.refused);
          runs.set(id, [...(runs.get(id) ?? []), measured]);
          figures.push(
            `${scenario.name} ${measured.cpuUs!.toFixed(1)} µs (Redis ${measured.redisUs.toFixed(1)}, commands ${measured.commandUs.toFixed(1)})`,
          );
        }
        parts.push(`${setup.label}: ${figures.join(', ')}`);
      }
      const which = processCount > 1 ? ` (processes #${((round - 1) % processCount) + 1})` : '';
      console.log(`  round ${round}${which}: ${parts.join('; ')}`);
    }
    const plainMedian = medianByCpu(plainRuns) as RedisMeasured;
    print('  plain proxy -> stub', plainMedian, 'proxy CPU');
    const table: string[] = [
      '| setup | scenario | gateway CPU µs/req | ÷ plain | Redis CPU µs/req | of which commands | req/s | ÷ plain | req/s per Redis core | 3 primaries |',
      '|---|---|---|---|---|---|---|---|---|---|',
      `| plain node:http + undici proxy | layer 1 | ${plainMedian.cpuUs!.toFixed(1)} | 1.00 | ${plainMedian.redisUs.toFixed(1)} | ${plainMedian.commandUs.toFixed(1)} | ${plainMedian.result.rps.toFixed(0)} | 1.00 | | |`,
    ];
    if (floorRuns.length > 0) {
      const m = medianByCpu(floorRuns) as RedisMeasured;
      print('  floor proxy -> stub', m, 'proxy CPU');
      table.push(
        `| floor (plain + the spec's minimum) | layer 1 limited | ${m.cpuUs!.toFixed(1)} | ${(m.cpuUs! / plainMedian.cpuUs!).toFixed(2)} | ${median(floorRuns.map((run) => run.redisUs)).toFixed(1)} | ${median(floorRuns.map((run) => run.commandUs)).toFixed(1)} | ${m.result.rps.toFixed(0)} | ${(m.result.rps / plainMedian.result.rps).toFixed(2)} | | |`,
      );
    }
    for (const setup of setups) {
      for (const scenario of scenariosOf(setup)) {
        const list = runs.get(`${setup.label}|${scenario.name}`)!;
        const m = medianByCpu(list) as RedisMeasured;
        const redisUs = median(list.map((run) => run.redisUs));
        const commandUs = median(list.map((run) => run.commandUs));
        print(`  ${setup.label}, ${scenario.name} -> stub`, m, `gateway CPU`, scenario.refused);
        const ceiling = redisUs > 0 ? 1e6 / redisUs : Number.POSITIVE_INFINITY;
        table.push(
          `| ${setup.label} | ${scenario.name} | ${m.cpuUs!.toFixed(1)} | ${(m.cpuUs! / plainMedian.cpuUs!).toFixed(2)} | ${redisUs.toFixed(1)} | ${commandUs.toFixed(1)} | ${m.result.rps.toFixed(0)} | ${(m.result.rps / plainMedian.result.rps).toFixed(2)} | ${fmt(ceiling)} | ${fmt(3 * ceiling)} |`,
        );
      }
    }
    if (selectedScenarios === null) table.push(await idempotencyReplay(setups[0]!, rounds, seconds));
    console.log(`\n${table.join('\n')}\n`);
    console.log(
      '  (Redis CPU: median of rounds; a Redis core serves 1e6 / that requests/s; N primaries serve N times it for keys spread over slots)',
    );
    printGoals(setups[0]!, runs, plainRuns);
    if (floorRuns.length > 0) printFloor(setups[0]!, runs, plainRuns, floorRuns);
    console.log(
      '  budget for later features (quotas, allow-lists, sessions): no new per-request round trip, Redis at most +1 µs and the gateway at most +3 µs per request per feature; a feature a request does not use costs it nothing',
    );
    if (sink) console.log(`  the tracing sink received ${sink.exports()} export request(s), ${(sink.bytes() / 1024).toFixed(0)} KiB`);
  }

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
  await ownRedis.stop();
  const admin = new pg.Client({ connectionString: testServerUrl('DATABASE_URL') });
  await admin.connect();
  const setupDatabases = ['this', 'base0', 'base1', 'base2', 'traced'].flatMap((tag) => [`${tag}_keys`, `${tag}_identity`]);
  for (const service of ['keys', 'identity', 'catalog', ...setupDatabases])
    await admin.query(`DROP DATABASE IF EXISTS "${base}_${service}" WITH (FORCE)`);
  await admin.end();
}
