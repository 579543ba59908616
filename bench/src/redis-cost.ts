import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { apiKeyCacheKey, authzCacheKey, quotaCounterKey, rateLimitCacheKey } from '@acs/contracts';
import { startOwnRedis } from './own-redis.js';
import { benchOptions } from './bench-options.js';

const HELP = `Redis CPU per gateway request, Redis alone (no gateway): each request's commands replayed with
redis-benchmark (pipelined, as the gateway's connection batches them under load) against a redis-server of
this bench's own, Redis CPU (INFO cpu) divided by the requests. Steadier than the full bench on a busy machine.

Usage: npm run bench:redis -- [--requests N] [--pipeline N]

  --requests N   requests per pattern (default 200000)
  --pipeline N   commands per write (default 16)

A limited key's request: one MGET (its record, each window's previous-period counter, the user's record on
layer 1 + 2) and one INCR per window, no script (gateway/src/limits/sliding-window.ts).`;

const values = benchOptions(HELP, {
  requests: { type: 'string', default: '200000' },
  pipeline: { type: 'string', default: '16' },
});
const requests = Number(values.requests);
const pipeline = Number(values.pipeline);

const KEY = 'acs_live_BenchRedisCost000000000001';
const SECRET = 'bench-secret-that-is-long-enough-0000000000';
const USER = 4242;
const secretHash = createHash('sha256').update(SECRET).digest('base64url');
const record = (rateLimits: unknown) =>
  `7|${JSON.stringify({ id: '0b0f5a4e-1111-4b7e-9c1d-2f0e5d6c7a8b', secretHash, scopes: ['read:devices', 'auth:register', 'auth:login'], ownerUserId: USER, revoked: false, ...(rateLimits ? { rateLimits } : {}) })}`;
const LIMITS = [
  { limit: 1_000_000, windowSeconds: 1 },
  { limit: 1_000_000_000, windowSeconds: 86_400 },
];
const authz = `3|${JSON.stringify({ userId: USER, accountRole: 0, trialEndsAt: 4_000_000_000, subscriptionEndsAt: null, planType: 0, disabled: false })}`;

const redis = await startOwnRedis();
const port = new URL(redis.url).port;
const cli = (...args: string[]): string => execFileSync('redis-cli', ['-p', port, ...args], { encoding: 'utf8' }).trim();

/** Redis CPU per request of one pattern: each command of the request run `requests` times, CPU summed. */
function cost(commands: string[][]): number {
  let cpu = 0;
  for (const command of commands) {
    const before = redis.cpuSeconds();
    execFileSync('redis-benchmark', ['-p', port, '-n', String(requests), '-P', String(pipeline), '-c', '4', '-q', ...command], {
      stdio: 'ignore',
    });
    cpu += redis.cpuSeconds() - before;
  }
  return (cpu * 1e6) / requests;
}

try {
  const limitedKey = `${KEY}L`;
  cli('set', apiKeyCacheKey(KEY), record(null));
  const limitedRecord = record(LIMITS);
  cli('set', apiKeyCacheKey(limitedKey), limitedRecord);
  cli('set', authzCacheKey(USER), authz);
  const counter = (w: { windowSeconds: number }, start: number) => `${rateLimitCacheKey(limitedKey)}:${w.windowSeconds}:${start}`;
  const previous = LIMITS.map((w) => counter(w, 1000));
  const increments = LIMITS.map((w) => ['INCR', counter(w, 2000)]);
  const quota = quotaCounterKey(USER, 'month', '2026-11');
  const rows: [string, number][] = [
    ['layer 1, no limits (MGET)', cost([['MGET', apiKeyCacheKey(KEY)]])],
    ['layer 1 + 2, no limits (MGET of both)', cost([['MGET', apiKeyCacheKey(KEY), authzCacheKey(USER)]])],
    ['layer 1, limited, 2 windows (MGET + 2 INCR)', cost([['MGET', apiKeyCacheKey(limitedKey), ...previous], ...increments])],
    [
      'layer 1 + 2, limited, 2 windows (MGET + 2 INCR)',
      cost([['MGET', apiKeyCacheKey(limitedKey), ...previous, authzCacheKey(USER)], ...increments]),
    ],
    // Issue 29: the owner's monthly quota counter; on layer 1 the owner's record joins the MGET.
    ['layer 1, owned key, no quota (MGET of key and owner)', cost([['MGET', apiKeyCacheKey(KEY), authzCacheKey(USER)]])],
    [
      'layer 1, owned key, monthly quota (MGET + INCR)',
      cost([
        ['MGET', apiKeyCacheKey(KEY), authzCacheKey(USER)],
        ['INCR', quota],
      ]),
    ],
    [
      'layer 1 + 2, monthly quota (MGET + INCR)',
      cost([
        ['MGET', apiKeyCacheKey(KEY), authzCacheKey(USER)],
        ['INCR', quota],
      ]),
    ],
  ];
  console.log(
    `Redis CPU per request, ${requests} requests per pattern, ${pipeline} commands per write, redis-server ${cli('info', 'server').match(/redis_version:(\S+)/)?.[1]}`,
  );
  console.log('| pattern | Redis CPU µs/request | requests/s per Redis core | 3 primaries |');
  console.log('|---|---|---|---|');
  for (const [name, us] of rows) {
    console.log(
      `| ${name} | ${us.toFixed(2)} | ${Math.round(1e6 / us).toLocaleString('en-US')} | ${Math.round(3e6 / us).toLocaleString('en-US')} |`,
    );
  }
  console.log('goal (issue 25): at most 6 µs per request for keys with and without limits, layer 1 and layer 1 + 2');
} finally {
  await redis.stop();
}
