import { createServer } from 'node:net';
import pg from 'pg';
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { createMemoryBus } from '@acs/bus';
import { createRedisCache, type Cache } from '@acs/cache';
import { createTestDatabase, listenOnLoopback, uniqueName, type TestDatabase } from '@acs/testing';
import { keysConfigSchema, startKeysService } from '../src/index.js';
import { REDIS_URL, connectionsTo, deleteKeysWithPrefix, keysConfig, newSecret, rawRedis, silentLogger, unknownKey } from './harness.js';

let database: TestDatabase;
let cache: Cache;
const prefix = `${uniqueName('keys_seed_err')}:`;

beforeAll(async () => {
  database = await createTestDatabase('keys_seed_err');
  cache = createRedisCache({ url: REDIS_URL, keyPrefix: prefix, logger: silentLogger() });
});

afterAll(async () => {
  await cache?.close();
  const redis = rawRedis();
  await deleteKeysWithPrefix(redis, prefix).finally(() => redis.disconnect());
  await database?.drop();
});

async function startWith(env: Record<string, string>): Promise<unknown> {
  try {
    const service = await startKeysService(keysConfig(database, prefix, env), silentLogger(), cache, createMemoryBus());
    await service.close();
    return null;
  } catch (err) {
    return err;
  }
}

/** A failed start must leave no connection behind (the pool is closed). */
async function expectNoConnections(): Promise<void> {
  const deadline = Date.now() + 3_000;
  let open = await connectionsTo(database);
  while (open > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    open = await connectionsTo(database);
  }
  expect(open).toBe(0);
}

async function rowCount(): Promise<number> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>('SELECT count(*) AS n FROM api_keys');
    return Number(rows[0]!.n);
  } finally {
    await client.end();
  }
}

describe('a bad SEED_API_KEY stops the start with a clear message', () => {
  it.each([
    ['not a key at all', 'letmein'],
    ['an unknown environment', 'acs_prod_ABCDEFGHIJKLMNOPQRSTUVWX'],
    ['a short identifier', 'acs_live_abc'],
    ['an underscore in the identifier', 'acs_live_ABCDEFGH_IJKLMNOPQRSTUVWX'],
  ])('refuses %s', async (_what, key) => {
    const err = await startWith({ SEED_API_KEY: key, SEED_API_SECRET: newSecret() });
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toBe('SEED_API_KEY is not in the key format acs_<live|test>_<16-64 letters or digits>');
    expect((err as Error).message).not.toContain(key);
    expect(await rowCount()).toBe(0);
    await expectNoConnections();
  });

  it("refuses another deployment's prefix and names both prefixes", async () => {
    const err = await startWith({ SEED_API_KEY: unknownKey('other'), SEED_API_SECRET: newSecret() });
    expect((err as Error).message).toMatch(/prefix "other".*KEY_PREFIX is "acs"/);
    expect(await rowCount()).toBe(0);
    await expectNoConnections();
  });

  it('accepts the same key once KEY_PREFIX matches it', async () => {
    const key = unknownKey('other');
    expect(await startWith({ SEED_API_KEY: key, SEED_API_SECRET: newSecret(), KEY_PREFIX: 'other' })).toBeNull();
    expect(await rowCount()).toBe(1);
    await expectNoConnections();
  });

  it('refuses an unknown scope and names it', async () => {
    const err = await startWith({ SEED_API_KEY: unknownKey(), SEED_API_SECRET: newSecret(), SEED_API_SCOPES: 'read:devices admin:all' });
    expect((err as Error).message).toMatch(/Unknown scope\(s\): admin:all/);
    await expectNoConnections();
  });

  it('refuses SEED_API_KEY without SEED_API_SECRET before opening the database', async () => {
    const err = await startWith({ SEED_API_KEY: unknownKey() });
    expect((err as Error).message).toBe('SEED_API_SECRET is required when SEED_API_KEY is set');
    await expectNoConnections();
  });

  it('refuses a short SEED_API_SECRET in the configuration', () => {
    const result = keysConfigSchema.safeParse({ INTERNAL_SECRET: 'x'.repeat(32), SEED_API_KEY: unknownKey(), SEED_API_SECRET: 'short' });
    expect(result.success).toBe(false);
    expect(result.error!.issues[0]).toMatchObject({ path: ['SEED_API_SECRET'], message: 'expected at least 32 characters' });
  });
});

describe('other failed starts', () => {
  it('a taken port fails the start and closes the database pool', async () => {
    const blocker = createServer();
    const port = await listenOnLoopback(blocker);
    try {
      const err = await startWith({ PORT: String(port) });
      expect((err as NodeJS.ErrnoException).code).toBe('EADDRINUSE');
      await expectNoConnections();
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
  });
});
