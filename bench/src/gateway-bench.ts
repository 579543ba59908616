import { parseArgs } from 'node:util';
import os from 'node:os';
import pg from 'pg';
import { signContext } from '@acs/auth';
import { testServerUrl, uniqueName } from '@acs/testing';
import { startProcess, type ServiceProcess } from './processes.js';
import { runLoad, type LoadResult } from './load.js';
import { runWrk, wrkAvailable } from './wrk.js';

const HELP = `Gateway benchmark: GET /api/Dac direct to the catalog service and through the gateway
(layer-1 auth), side by side, on the real PostgreSQL and Redis.

Usage: npm run bench -- [--seconds N] [--connections N]

  --seconds N       measured seconds per scenario (default 10; plus 2 s warm-up)
  --connections N   concurrent keep-alive connections (default 32)
  --node-load       use the Node load generator even when wrk is installed

Environment: DATABASE_URL, REDIS_URL (default: the local servers). Creates and drops its own
databases (acs_bench_*) and Redis prefix. Prints requests/s, p50, p99 and the gateway's CPU per request.`;

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '10' }, connections: { type: 'string', default: '32' }, help: { type: 'boolean', short: 'h' }, 'node-load': { type: 'boolean' } } });
if (values.help) {
  console.log(HELP);
  process.exit(0);
}
const seconds = Number(values.seconds);
const connections = Number(values.connections);

const INTERNAL_SECRET = 'bench-internal-secret-0123456789abcdefgh';
const KEY = 'acs_live_BenchKey000000000000000001';
const SECRET = 'bench-secret-that-is-long-enough-0000000000';
const PATH = '/api/Dac?page=1&pageSize=20';
const base = uniqueName('acs_bench');
const dbUrl = (service: string): string => {
  const url = new URL(testServerUrl('DATABASE_URL'));
  url.pathname = `/${base}_${service}`;
  return url.toString();
};
const common = { INTERNAL_SECRET, LOG_LEVEL: 'warn', HOST: '127.0.0.1', PORT: '0', REDIS_URL: testServerUrl('REDIS_URL'), REDIS_PREFIX: `${base}:` };

function row(name: string, r: LoadResult, cpuUsPerRequest?: number): string {
  const cpu = cpuUsPerRequest === undefined ? '' : `  gateway CPU ${cpuUsPerRequest.toFixed(1)} µs/req`;
  return `${name.padEnd(28)} ${r.rps.toFixed(0).padStart(7)} req/s  p50 ${r.p50ms.toFixed(2)} ms  p99 ${r.p99ms.toFixed(2)} ms  (${r.requests} requests, ${r.errors} errors)${cpu}`;
}

const started: ServiceProcess[] = [];
try {
  console.log(`machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}`);
  console.log(`starting keys, catalog and gateway (each its own process) on ${new URL(testServerUrl('DATABASE_URL')).host} ...`);
  const keys = await startProcess('keys', 'services/keys/dist/main.js', { ...common, DATABASE_URL: dbUrl('keys'), SEED_API_KEY: KEY, SEED_API_SECRET: SECRET, SEED_API_SCOPES: 'read:devices' });
  started.push(keys);
  const catalog = await startProcess('catalog', 'services/catalog/dist/main.js', { ...common, DATABASE_URL: dbUrl('catalog') });
  started.push(catalog);
  // BENCH_GATEWAY_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the gateway under this load.
  const nodeArgs = (process.env.BENCH_GATEWAY_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const gateway = await startProcess('gateway', 'gateway/dist/main.js', { ...common, KEYS_URL: keys.url, CATALOG_URL: catalog.url }, nodeArgs);
  started.push(gateway);

  const plain = await startProcess('plain proxy', 'bench/dist/plain-proxy.js', { UPSTREAM_URL: catalog.url });
  started.push(plain);

  const direct = () => {
    const signed = signContext(INTERNAL_SECRET, 'GET', PATH, { requestId: 'bench', keyId: 'bench', scopes: ['read:devices'] });
    return { 'x-acs-context': signed.context, 'x-acs-signature': signed.signature };
  };
  const viaGateway = () => ({ 'x-api-key': KEY, 'x-api-secret': SECRET });

  const useWrk = wrkAvailable() && !values['node-load'];
  const load = (origin: string, headers: () => Record<string, string>, secs: number): Promise<LoadResult> =>
    useWrk ? runWrk(origin + PATH, headers(), connections, secs) : runLoad(origin, PATH, headers, connections, secs);
  console.log(`load generator: ${useWrk ? 'wrk (1 thread)' : 'Node (undici); install wrk for figures less disturbed by the generator'}`);
  console.log(`warming up (2 s each), then ${seconds} s per scenario with ${connections} connections\n`);
  await load(catalog.url, direct, 2);
  await load(gateway.url, viaGateway, 2);
  await load(plain.url, direct, 2);

  const directResult = await load(catalog.url, direct, seconds);
  const plainCpuBefore = plain.cpuSeconds();
  const plainResult = await load(plain.url, direct, seconds);
  const plainCpuUs = ((plain.cpuSeconds() - plainCpuBefore) * 1e6) / plainResult.requests;
  const cpuBefore = gateway.cpuSeconds();
  const gatewayResult = await load(gateway.url, viaGateway, seconds);
  const gatewayCpuUs = ((gateway.cpuSeconds() - cpuBefore) * 1e6) / gatewayResult.requests;

  console.log(row('direct to catalog', directResult));
  console.log(row('plain proxy, no auth', plainResult).replace('(', `(`) + `  proxy CPU ${plainCpuUs.toFixed(1)} µs/req`);
  console.log(row('through gateway (layer 1)', gatewayResult, gatewayCpuUs));
  console.log(`\nratio gateway/direct: throughput ${(gatewayResult.rps / directResult.rps).toFixed(2)}, p50 +${(gatewayResult.p50ms - directResult.p50ms).toFixed(2)} ms, p99 +${(gatewayResult.p99ms - directResult.p99ms).toFixed(2)} ms`);
  console.log(`gateway CPU beyond a plain proxy (auth, routing, signing): ${(gatewayCpuUs - plainCpuUs).toFixed(1)} µs/req`);
  console.log(`goal: gateway CPU per proxied request with layer-1 auth under 80 µs -> ${gatewayCpuUs < 80 ? 'met' : 'NOT met'} (${gatewayCpuUs.toFixed(1)} µs)`);
  let errors = directResult.errors + plainResult.errors + gatewayResult.errors;

  // Isolation: the same response bytes from a static stub, so only the proxies' own CPU counts.
  const page = await (await fetch(catalog.url + PATH, { headers: direct() })).text();
  const stub = await startProcess('stub', 'bench/dist/stub-upstream.js', { STUB_BODY: page });
  started.push(stub);
  const plainToStub = await startProcess('plain proxy', 'bench/dist/plain-proxy.js', { UPSTREAM_URL: stub.url });
  started.push(plainToStub);
  const gatewayToStub = await startProcess('gateway', 'gateway/dist/main.js', { ...common, KEYS_URL: keys.url, CATALOG_URL: stub.url });
  started.push(gatewayToStub);
  await load(plainToStub.url, direct, 2);
  await load(gatewayToStub.url, viaGateway, 2);
  const measure = async (target: ServiceProcess, headers: () => Record<string, string>) => {
    const before = target.cpuSeconds();
    const result = await load(target.url, headers, seconds);
    return { result, cpuUs: ((target.cpuSeconds() - before) * 1e6) / result.requests };
  };
  const isolatedPlain = await measure(plainToStub, direct);
  const isolatedGateway = await measure(gatewayToStub, viaGateway);
  console.log(`\nisolated: the same ${page.length}-byte page from a static stub`);
  console.log(row('plain proxy -> stub', isolatedPlain.result) + `  proxy CPU ${isolatedPlain.cpuUs.toFixed(1)} µs/req`);
  console.log(row('gateway (layer 1) -> stub', isolatedGateway.result, isolatedGateway.cpuUs));
  console.log(`gateway CPU beyond a plain proxy, isolated: ${(isolatedGateway.cpuUs - isolatedPlain.cpuUs).toFixed(1)} µs/req`);
  errors += isolatedPlain.result.errors + isolatedGateway.result.errors;
  if (errors > 0) process.exitCode = 1;
} finally {
  for (const p of started.reverse()) await p.stop();
  const admin = new pg.Client({ connectionString: testServerUrl('DATABASE_URL') });
  await admin.connect();
  for (const service of ['keys', 'catalog']) await admin.query(`DROP DATABASE IF EXISTS "${base}_${service}" WITH (FORCE)`);
  await admin.end();
}
