import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { createRedisCache } from '@acs/cache';
import { testServerUrl, uniqueName } from '@acs/testing';

// Issue 24.5: one Redis user per process, as deploy/redis/acl-users.sh defines them (compose and k8s
// load its output). Made on the real server under unique user names and a unique key prefix, used, and
// deleted after; the `default` user is never touched.
const SCRIPT = fileURLToPath(new URL('../../../deploy/redis/acl-users.sh', import.meta.url));
const REDIS_URL = testServerUrl('REDIS_URL');
const prefix = `${uniqueName('acltest')}:`;
const userPrefix = `${uniqueName('acl')}-`;
const passwords = { gateway: 'gateway-pw-0123456789', keys: 'keys-pw-0123456789', identity: 'identity-pw-0123456789' };
type Process = keyof typeof passwords;

const admin = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
const clients = new Map<Process, Redis>();
const as = (process: Process): Redis => clients.get(process)!;

beforeAll(async () => {
  const lines = execFileSync('sh', [SCRIPT], {
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH ?? '',
      REDIS_PREFIX: prefix,
      REDIS_USER_PREFIX: userPrefix,
      REDIS_GATEWAY_PASSWORD: passwords.gateway,
      REDIS_KEYS_PASSWORD: passwords.keys,
      REDIS_IDENTITY_PASSWORD: passwords.identity,
    },
  })
    .trim()
    .split('\n');
  expect(lines).toHaveLength(3);
  for (const line of lines) {
    // An ACL file line is ACL SETUSER's arguments after the word "user"; a selector "( ... )" is one argument.
    const [, name, ...rules] = line.match(/\([^)]*\)|\S+/g)!;
    await admin.call('ACL', 'SETUSER', name!, ...rules);
  }
  for (const process of Object.keys(passwords) as Process[]) {
    clients.set(
      process,
      new Redis(REDIS_URL, { username: `${userPrefix}${process}`, password: passwords[process], maxRetriesPerRequest: 1 }),
    );
  }
});
afterAll(async () => {
  for (const client of clients.values()) client.disconnect();
  for (const process of Object.keys(passwords)) await admin.call('ACL', 'DELUSER', `${userPrefix}${process}`);
  const keys = await admin.keys(`${prefix}*`);
  if (keys.length > 0) await admin.del(...keys);
  admin.disconnect();
});

const NOPERM = /NOPERM/;
const READ_AND_LIMIT = "local record = redis.call('GET', KEYS[1]); redis.call('SET', KEYS[2], '1', 'EX', 60); return record";
const WRITE_FIRST_KEY = "redis.call('SET', KEYS[1], 'forged'); return 1";

describe('Redis ACL users per process', () => {
  it('keys writes the key records, and nothing else', async () => {
    expect(await as('keys').set(`${prefix}apikey:acs_live_A`, '{"record":1}')).toBe('OK');
    await expect(as('keys').set(`${prefix}authz:1`, 'x')).rejects.toThrow(NOPERM);
    await expect(as('keys').set(`${prefix}ratelimit:x`, 'x')).rejects.toThrow(NOPERM);
    await expect(as('keys').flushdb()).rejects.toThrow(NOPERM);
  });

  it('identity writes the authorization records and its sign-in throttles; a key record is refused (NOPERM)', async () => {
    expect(await as('identity').set(`${prefix}authz:1`, '{"role":1}')).toBe('OK');
    expect(await as('identity').incr(`${prefix}login-fail:addr:1`)).toBe(1);
    await expect(as('identity').set(`${prefix}apikey:acs_live_MINTED`, '{"scopes":["system:full-access"]}')).rejects.toThrow(NOPERM);
  });

  it('the gateway reads records and keeps its limiter in one script; it cannot write a record, directly or by script', async () => {
    expect(await as('gateway').mget(`${prefix}apikey:acs_live_A`, `${prefix}authz:1`)).toEqual(['{"record":1}', '{"role":1}']);
    expect(await as('gateway').eval(READ_AND_LIMIT, 2, `${prefix}apikey:acs_live_A`, `${prefix}ratelimit:acs_live_A`)).toBe('{"record":1}');
    expect(await admin.get(`${prefix}ratelimit:acs_live_A`)).toBe('1');
    await expect(as('gateway').set(`${prefix}apikey:acs_live_A`, 'forged')).rejects.toThrow(NOPERM);
    // Inside a script Redis words the same refusal differently.
    await expect(as('gateway').eval(WRITE_FIRST_KEY, 1, `${prefix}apikey:acs_live_A`)).rejects.toThrow(
      /can't access at least one of the keys/,
    );
    await expect(as('gateway').set(`${prefix}authz:1`, 'forged')).rejects.toThrow(NOPERM);
    // Its counters (issue 25: plain INCRs, no script; issue 29: the users' quota counters).
    expect(await as('gateway').incr(`${prefix}ratelimit:{acs_live_A}:60:1800000000`)).toBe(1);
    expect(await as('gateway').incr(`${prefix}quota:{1}:m:2026-11`)).toBe(1);
    expect(await as('gateway').pexpireat(`${prefix}quota:{1}:m:2026-11`, Date.now() + 60_000)).toBe(1);
    await expect(as('gateway').incr(`${prefix}authz:{1}`)).rejects.toThrow(NOPERM);
    expect(await admin.get(`${prefix}apikey:acs_live_A`)).toBe('{"record":1}');
  });

  it('the gateway counts plan quotas (INCR, INCRBY, DECR, expiry) and nothing more there; keys reads them, never writes', async () => {
    const counter = `${prefix}quota:{7}:d:2026-11-26`;
    expect(await as('gateway').incr(counter)).toBe(1);
    expect(await as('gateway').incrby(counter, 2)).toBe(3);
    // A refused request's count is given back (DECR); a new counter gets its window's end (PEXPIREAT).
    expect(await as('gateway').incr(counter)).toBe(4);
    expect(await as('gateway').decr(counter)).toBe(3);
    expect(await as('gateway').pexpireat(counter, Date.now() + 60_000)).toBe(1);
    expect(await as('gateway').pexpire(counter, 60_000)).toBe(1);
    expect(await as('gateway').expire(counter, 60)).toBe(1);
    // The same on its rate-limit counters.
    const window = `${prefix}ratelimit:{acs_live_Q}:1:1800000000`;
    expect(await as('gateway').incr(window)).toBe(1);
    expect(await as('gateway').decr(window)).toBe(0);
    expect(await as('gateway').pexpireat(window, Date.now() + 60_000)).toBe(1);
    await expect(as('gateway').set(counter, '0')).rejects.toThrow(NOPERM);
    await expect(as('gateway').del(counter)).rejects.toThrow(NOPERM);
    expect(await as('keys').get(counter)).toBe('3');
    expect(await as('keys').mget(counter, `${prefix}apikey:acs_live_A`)).toEqual(['3', '{"record":1}']);
    await expect(as('keys').set(counter, '0')).rejects.toThrow(NOPERM);
    await expect(as('keys').incr(counter)).rejects.toThrow(NOPERM);
    await expect(as('keys').decr(counter)).rejects.toThrow(NOPERM);
    await expect(as('keys').pexpireat(counter, Date.now())).rejects.toThrow(NOPERM);
    // GET /api/Usage also reads the user's authorization record (plan, quota), which identity owns.
    expect(await as('keys').get(`${prefix}authz:1`)).toBe('{"role":1}');
    await expect(as('keys').set(`${prefix}authz:1`, 'forged')).rejects.toThrow(NOPERM);
    await expect(as('identity').get(counter)).rejects.toThrow(NOPERM);
  });

  it("the platform's own cache logs in with a user and password from REDIS_URL (the gateway's raw MGET connection too)", async () => {
    const url = new URL(REDIS_URL);
    url.username = `${userPrefix}gateway`;
    url.password = passwords.gateway;
    const cache = createRedisCache({ url: url.toString(), keyPrefix: prefix });
    try {
      expect(await cache.mgetVersioned(['apikey:acs_live_NONE'])).toEqual([null]);
      expect(await cache.get('apikey:acs_live_A')).toBe('{"record":1}');
      await expect(cache.set('apikey:acs_live_A', 'forged')).rejects.toThrow(NOPERM);
    } finally {
      await cache.close();
    }
  });
});
