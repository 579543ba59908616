import { afterAll, beforeAll } from '@jest/globals';
import type { Redis } from 'ioredis';
import { cliRunner, createTestDatabase, uniqueName, type TestDatabase } from '@acs/testing';
import { REDIS_URL, deleteKeysWithPrefix, rawRedis } from './harness.js';

export type { CliResult } from '@acs/testing';
export const { buildCli, runCli } = cliRunner('services/keys');

/** The key, secret and id the `create` command prints. */
export function parseCreated(stdout: string): { id: string; key: string; secret: string } {
  const id = /API key created \(([0-9a-f-]{36})\)/.exec(stdout)?.[1];
  const key = /X-Api-Key:\s+(\S+)/.exec(stdout)?.[1];
  const secret = /X-Api-Secret:\s+(\S+)/.exec(stdout)?.[1];
  if (!id || !key || !secret) throw new Error(`unexpected create output:\n${stdout}`);
  return { id, key, secret };
}

/** The CLI's environment and what it wrote through to the gateway's Redis, for one test file. */
export interface CliServers {
  /** KEYS_DATABASE_URL, REDIS_URL and REDIS_PREFIX of this file's own database and key prefix. */
  env(): Record<string, string>;
  /** The key's record as the gateway reads it from Redis (the JSON after the version). */
  cachedRecord(key: string): Promise<Record<string, unknown>>;
}

/** Builds the CLI, gives the file a fresh database and Redis prefix, and removes both afterwards. */
export function useCliServers(name: string): CliServers {
  let database: TestDatabase;
  let redis: Redis;
  let env: Record<string, string>;
  const prefix = `${uniqueName(name)}:`;
  beforeAll(async () => {
    await buildCli();
    database = await createTestDatabase(name);
    env = { KEYS_DATABASE_URL: database.url, REDIS_URL, REDIS_PREFIX: prefix };
    redis = rawRedis();
  }, 180_000);
  afterAll(async () => {
    if (redis) await deleteKeysWithPrefix(redis, prefix).finally(() => redis.disconnect());
    await database?.drop();
  });
  return {
    env: () => env,
    async cachedRecord(key) {
      const raw = (await redis.get(`${prefix}apikey:{${key}}`))!;
      return JSON.parse(raw.slice(raw.indexOf('|') + 1)) as Record<string, unknown>;
    },
  };
}
