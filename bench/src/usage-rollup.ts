import { benchOptions, keysBusEnv } from './bench-options.js';
import pg from 'pg';
import { Pool } from 'undici';
import { KeyUsageRecorder } from '@acs/gateway';
import { createLogger } from '@acs/logger';
import { testServerUrl, uniqueName } from '@acs/testing';
import { startOwnRedis } from './own-redis.js';
import { startProcess } from './processes.js';

const HELP = `Does the keys service's usage roll-up (issue 29) keep up with the gateways? Runs the keys service as a
process on the real PostgreSQL, and gateways' KeyUsageRecorders (the gateway's own class) in this process counting
--rps requests per second (spread over --keys keys x --operations operations x the status classes) for --seconds,
flushing every --flush-ms as the gateway does. Prints each flush's duration against the interval, the keys
service's CPU, and compares the rows' totals with what was counted (goal: nothing dropped, every flush done
well within its interval).

Usage: npm run bench:usage -- [--rps 20000] [--seconds 30] [--keys 200] [--operations 17] [--gateways 2] [--flush-ms 10000]`;

const values = benchOptions(HELP, {
  rps: { type: 'string', default: '20000' },
  seconds: { type: 'string', default: '30' },
  keys: { type: 'string', default: '200' },
  operations: { type: 'string', default: '17' },
  gateways: { type: 'string', default: '2' },
  'flush-ms': { type: 'string', default: '10000' },
});
const [rps, seconds, keyCount, operationCount, gatewayCount, flushMs] = [
  values.rps,
  values.seconds,
  values.keys,
  values.operations,
  values.gateways,
  values['flush-ms'],
].map(Number) as [number, number, number, number, number, number];

const INTERNAL_SECRET = 'bench-internal-secret-0123456789abcdefgh';
const base = uniqueName('acs_bench_usage');
const dbUrl = new URL(testServerUrl('DATABASE_URL'));
dbUrl.pathname = `/${base}_keys`;
const STATUSES = [200, 200, 200, 200, 201, 304, 404, 429, 503];
const redis = await startOwnRedis();
const keys = await startProcess('keys', 'services/keys/dist/main.js', {
  INTERNAL_SECRET,
  LOG_LEVEL: 'warn',
  HOST: '127.0.0.1',
  DATABASE_URL: dbUrl.toString(),
  REDIS_URL: redis.url,
  REDIS_PREFIX: `${base}:`,
  ...keysBusEnv(base),
});
const db = new pg.Client({ connectionString: dbUrl.toString() });
await db.connect();

/** Flush durations, wrapped around the recorder's own flush (it sends the batch and awaits the answer). */
const flushes: number[] = [];
function timedRecorder(pool: Pool): KeyUsageRecorder {
  const recorder = new KeyUsageRecorder(
    { name: 'keys', origin: keys.url, pool, internalSecret: INTERNAL_SECRET },
    INTERNAL_SECRET,
    createLogger({ name: 'bench-usage', level: 'warn' }),
    flushMs,
  );
  const flush = recorder.flush.bind(recorder);
  recorder.flush = async () => {
    const started = performance.now();
    await flush();
    flushes.push(performance.now() - started);
  };
  return recorder;
}

try {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO api_keys (key, secret_hash, name, scopes, owner_user_id, environment)
     SELECT 'acs_live_BenchUsage' || lpad(i::text, 18, '0'), 'x', 'bench ' || i, ARRAY['read:devices'], 1 + i % 50, 'live'
       FROM generate_series(1, $1) AS i RETURNING id`,
    [keyCount],
  );
  const keyIds = rows.map((row) => row.id);
  const operations = Array.from({ length: operationCount }, (_, i) => `operation${i}`);
  const pool = new Pool(keys.url);
  const recorders = Array.from({ length: gatewayCount }, () => timedRecorder(pool));
  const timers = recorders.map((recorder) => setInterval(() => void recorder.flush(), flushMs));
  const cpuBefore = keys.cpuSeconds();
  let counted = 0;
  const started = performance.now();
  // Every 10 ms, the requests of that slice, round-robin over the gateways.
  while (performance.now() - started < seconds * 1000) {
    const due = Math.floor(((performance.now() - started) / 1000) * rps);
    for (; counted < due; counted++) {
      const recorder = recorders[counted % gatewayCount]!;
      const keyId = keyIds[(counted * 7919) % keyIds.length]!;
      recorder.record(keyId);
      recorder.count(keyId, STATUSES[counted % STATUSES.length]!, operations[(counted * 31) % operations.length]);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  for (const timer of timers) clearInterval(timer);
  for (const recorder of recorders) await recorder.stop();
  const cpu = keys.cpuSeconds() - cpuBefore;
  const sums = await db.query<{ operation: string; daily: string }>(
    `SELECT (SELECT sum(status_2xx + status_3xx + status_4xx + status_429 + status_5xx) FROM api_key_operation_usage) AS operation,
            (SELECT sum(status_2xx + status_3xx + status_4xx + status_429 + status_5xx) FROM api_key_daily_usage) AS daily`,
  );
  const stored = { operation: Number(sums.rows[0]!.operation), daily: Number(sums.rows[0]!.daily) };
  const sorted = [...flushes].sort((a, b) => a - b);
  const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!.toFixed(0);
  console.log(
    `counted ${counted} requests in ${seconds} s (${Math.round(counted / seconds)} req/s over ${gatewayCount} gateways, ${keyCount} keys x ${operationCount} operations)`,
  );
  console.log(`flushes: ${flushes.length}, duration p50 ${pct(0.5)} ms, max ${pct(1)} ms (interval ${flushMs} ms)`);
  console.log(`keys service CPU: ${cpu.toFixed(2)} s (${((cpu / counted) * 1e6).toFixed(2)} µs per counted request)`);
  console.log(`stored: ${stored.operation} per operation, ${stored.daily} per day; dropped: ${counted - stored.operation}`);
  const keptUp = stored.operation === counted && stored.daily === counted && Number(pct(1)) < flushMs / 2;
  console.log(`goal: the roll-up keeps up, nothing dropped -> ${keptUp ? 'met' : 'NOT met'}`);
  if (!keptUp) process.exitCode = 1;
  await pool.close();
} finally {
  await db.end();
  await keys.stop();
  await redis.stop();
  const admin = new pg.Client({ connectionString: testServerUrl('DATABASE_URL') });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${base}_keys" WITH (FORCE)`);
  await admin.end();
}
