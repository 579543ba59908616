import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import type { Redis } from 'ioredis';
import { createTestDatabase, uniqueName, type TestDatabase } from '@acs/testing';
import { REDIS_URL, deleteKeysWithPrefix, rawRedis } from './harness.js';
import { buildCli, parseCreated, runCli } from './cli-harness.js';

// `npm run keys -- set-limits`: operators set or clear a key's own rate limits; written through to the gateway's Redis.
let database: TestDatabase;
let redis: Redis;
const prefix = `${uniqueName('keys_cli_limits')}:`;
let env: Record<string, string>;

beforeAll(async () => {
  await buildCli();
  database = await createTestDatabase('keys_cli_limits');
  env = { KEYS_DATABASE_URL: database.url, REDIS_URL, REDIS_PREFIX: prefix };
  redis = rawRedis();
}, 180_000);

afterAll(async () => {
  if (redis) await deleteKeysWithPrefix(redis, prefix).finally(() => redis.disconnect());
  await database?.drop();
});

async function cachedRecord(key: string): Promise<Record<string, unknown>> {
  const raw = (await redis.get(`${prefix}apikey:${key}`))!;
  return JSON.parse(raw.slice(raw.indexOf('|') + 1)) as Record<string, unknown>;
}

describe('keys CLI set-limits', () => {
  it('sets limits by key or id, shows them in list, writes them through, and --clear removes them', async () => {
    const created = parseCreated((await runCli(['create', '--scopes', 'read:devices'], env)).stdout);
    const set = await runCli(['set-limits', created.key, '--limits', '20/1s,50000/1d'], env);
    expect(set).toMatchObject({ code: 0, stderr: '' });
    expect(set.stdout).toContain('limits 20/1s,50000/1d');
    expect((await cachedRecord(created.key)).rateLimits).toEqual([
      { limit: 20, windowSeconds: 1 },
      { limit: 50_000, windowSeconds: 86_400 },
    ]);
    expect((await runCli(['list'], env)).stdout).toContain('limits 20/1s,50000/1d');

    const cleared = await runCli(['set-limits', created.id, '--clear'], env);
    expect(cleared).toMatchObject({ code: 0, stderr: '' });
    expect(cleared.stdout).toContain('default limits');
    expect(await cachedRecord(created.key)).not.toHaveProperty('rateLimits');
  });

  it('refuses a bad list, both or neither option, and an unknown key, with exit code 1 and a message', async () => {
    const created = parseCreated((await runCli(['create', '--scopes', 'read:devices'], env)).stdout);
    for (const args of [
      ['set-limits', created.key, '--limits', '20/1w'],
      ['set-limits', created.key, '--limits', '0/1s'],
      ['set-limits', created.key, '--limits', '1/1s,1/2s,1/3s,1/4s,1/5s'],
      ['set-limits', created.key],
      ['set-limits', created.key, '--limits', '20/1s', '--clear'],
      ['set-limits', 'acs_live_nosuchkeynosuchkey12', '--limits', '20/1s'],
    ]) {
      const result = await runCli(args, env);
      expect({ args, code: result.code }).toEqual({ args, code: 1 });
      expect(result.stderr.length).toBeGreaterThan(0);
    }
    expect(await cachedRecord(created.key)).not.toHaveProperty('rateLimits');
  });
});
