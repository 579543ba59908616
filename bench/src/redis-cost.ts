import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { apiKeyCacheKey, authzCacheKey, rateLimitCacheKey } from '@acs/contracts';
import { RATE_LIMIT_SCRIPT as LIMIT } from '@acs/gateway';
import { startOwnRedis } from './own-redis.js';
import { benchOptions } from './bench-options.js';

const HELP = `Redis CPU per gateway request, Redis alone (no gateway): each request's commands replayed with
redis-benchmark (pipelined, as the gateway's connection batches them under load) against a redis-server of
this bench's own, Redis CPU (INFO cpu) divided by the requests. Steadier than the full bench on a busy machine.

Usage: npm run bench:redis -- [--requests N] [--pipeline N] [--baseline DIR]

  --requests N   requests per pattern (default 200000)
  --pipeline N   commands per write (default 16)
  --baseline DIR a checkout (built) before this change: its per-request script (READ_AND_LIMIT, issue 16) is
                 measured too, on the same records`;

const values = benchOptions(HELP, {
  requests: { type: 'string', default: '200000' },
  pipeline: { type: 'string', default: '16' },
  baseline: { type: 'string' },
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
  cli('script', 'load', LIMIT.source);
  const limitArgs = ['7|', String(limitedRecord.length), ...LIMITS.flatMap((w) => [String(w.limit), String(w.windowSeconds)])];
  const limit = ['EVALSHA', LIMIT.sha, '2', apiKeyCacheKey(limitedKey), rateLimitCacheKey(limitedKey), ...limitArgs];
  const rows: [string, number][] = [
    ['this: layer 1, no limits (MGET)', cost([['MGET', apiKeyCacheKey(KEY)]])],
    ['this: layer 1 + 2, no limits (MGET of both)', cost([['MGET', apiKeyCacheKey(KEY), authzCacheKey(USER)]])],
    ['this: layer 1, limited (EVALSHA version check + GCRA)', cost([limit])],
    ['this: layer 1 + 2, limited (EVALSHA + MGET of the user)', cost([limit, ['MGET', authzCacheKey(USER)]])],
  ];
  if (values.baseline) {
    const old = (await import(resolve(values.baseline, 'gateway/dist/limits/limit-script.js'))) as {
      READ_AND_LIMIT?: { source: string; sha: string };
    };
    if (old.READ_AND_LIMIT) {
      // The baseline's names (no hash tags) and records; the same scopes and windows.
      cli('set', `apikey:${KEY}`, record(null));
      cli('set', `apikey:${limitedKey}`, limitedRecord);
      cli('set', `authz:${USER}`, authz);
      cli('script', 'load', old.READ_AND_LIMIT.source);
      const script = (key: string, user: boolean) => [
        'EVALSHA',
        old.READ_AND_LIMIT!.sha,
        user ? '3' : '2',
        `apikey:${key}`,
        `ratelimit:${key}`,
        ...(user ? [`authz:${USER}`] : []),
        secretHash,
        ' read:devices write:devices system:full-access ',
        user ? '0' : '',
        '',
      ];
      rows.push(
        ['baseline: layer 1, no limits (READ_AND_LIMIT)', cost([script(KEY, false)])],
        ['baseline: layer 1 + 2, no limits (READ_AND_LIMIT)', cost([script(KEY, true)])],
        ['baseline: layer 1, limited (READ_AND_LIMIT)', cost([script(limitedKey, false)])],
        ['baseline: layer 1 + 2, limited (READ_AND_LIMIT)', cost([script(limitedKey, true)])],
      );
    }
  }
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
