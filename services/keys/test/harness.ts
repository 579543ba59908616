import { createHash, randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';
import { createMemoryBus, type Bus } from '@acs/bus';
import { createRedisCache, type Cache } from '@acs/cache';
import { apiKeyCacheKey, apiKeyCacheRecordSchema, type ApiKeyCacheRecord } from '@acs/contracts';
import type { Db } from '@acs/db';
import type { Logger } from '@acs/logger';
import { createTestDatabase, signedFetch, testServerUrl, uniqueName, type TestDatabase } from '@acs/testing';
import { keysConfigSchema, startKeysService, type KeysConfig, type KeysDeps, type KeysService } from '../src/index.js';
import type { CreateKeyInput } from '../src/domain/create-key.js';
import { captureLogger as captureLines, silentLogger as silent, unusedPort, type LogLine } from '@acs/testing';

export type { LogLine };
export const silentLogger = (): Logger => silent('keys-test');
export const captureLogger = (name = 'keys-test') => captureLines(name, 'debug');

export const INTERNAL_SECRET = `keys-test-secret-${randomBytes(16).toString('hex')}`;
export const REDIS_URL = testServerUrl('REDIS_URL');

/** A Redis client without prefix: to see exactly what the service wrote, and to clean up. */
export function rawRedis(): Redis {
  return new Redis(REDIS_URL, { maxRetriesPerRequest: 1, connectTimeout: 2_000 });
}

export async function deleteKeysWithPrefix(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    if (keys.length > 0) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
}

/** A Redis URL on which nothing listens (a port that was free a moment ago). */
export async function closedRedisUrl(): Promise<string> {
  return `redis://127.0.0.1:${await unusedPort()}`;
}

export interface CachedKey {
  version: number;
  record: ApiKeyCacheRecord | 'missing';
  ttlSeconds: number;
}

export interface KeysHarness {
  database: TestDatabase;
  /** This run's Redis key prefix, e.g. `keys_123_ab12cd34:`. */
  prefix: string;
  cache: Cache;
  redis: Redis;
  service: KeysService;
  deps: KeysDeps;
  url: string;
  db: Db;
  /** POST /internal/keys/lookup as the gateway calls it. */
  lookup(body: unknown): Promise<Response>;
  /** The raw entry at `<prefix>apikey:{<key>}`, parsed; null when there is none. */
  cached(key: string): Promise<CachedKey | null>;
  /** Starts the service again on the same database and cache, with other variables if given. */
  restart(env?: Record<string, string>): Promise<void>;
  stopService(): Promise<void>;
  stop(): Promise<void>;
}

export interface StartKeysOptions {
  env?: Record<string, string>;
  logger?: Logger;
  /** Used instead of the harness's Redis cache (it is not closed by the harness then). */
  cache?: Cache;
  /** Where key events are published (owned by the caller); default: an in-process bus of the harness's own. */
  bus?: Bus;
}

export function keysConfig(database: TestDatabase, prefix: string, env: Record<string, string> = {}): KeysConfig {
  return keysConfigSchema.parse({
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    DATABASE_URL: database.url,
    REDIS_URL,
    REDIS_PREFIX: prefix,
    INTERNAL_SECRET,
    ...env,
  });
}

/** A keys service on a fresh database, writing through to real Redis under a prefix of its own. */
export async function startKeys(options: StartKeysOptions = {}): Promise<KeysHarness> {
  const database = await createTestDatabase('keys');
  const prefix = `${uniqueName('keys')}:`;
  const logger = options.logger ?? silentLogger();
  const cache = options.cache ?? createRedisCache({ url: REDIS_URL, keyPrefix: prefix, logger });
  const redis = rawRedis();
  const bus = options.bus ?? createMemoryBus();
  let service: KeysService | null = null;
  const cleanup = async (): Promise<void> => {
    await service?.close();
    service = null;
    if (!options.cache) await cache.close();
    if (!options.bus) await bus.close();
    await deleteKeysWithPrefix(redis, prefix).finally(() => redis.disconnect());
    await database.drop();
  };
  try {
    service = await startKeysService(keysConfig(database, prefix, options.env), logger, cache, bus);
  } catch (err) {
    await cleanup();
    throw err;
  }
  const harness: KeysHarness = {
    database,
    prefix,
    cache,
    redis,
    get service() {
      if (!service) throw new Error('the keys service is stopped');
      return service;
    },
    get deps() {
      return harness.service.deps;
    },
    get url() {
      return harness.service.server.url;
    },
    get db() {
      return harness.service.deps.db;
    },
    lookup: (body) =>
      signedFetch(harness.url, INTERNAL_SECRET, 'POST', '/internal/keys/lookup', { body, context: { keyId: null, scopes: [] } }),
    async cached(key) {
      const fullKey = `${prefix}${apiKeyCacheKey(key)}`;
      const [raw, ttlSeconds] = await Promise.all([redis.get(fullKey), redis.ttl(fullKey)]);
      if (raw === null) return null;
      const match = /^(\d+)\|(.*)$/s.exec(raw);
      if (!match) throw new Error(`not a versioned entry: ${raw}`);
      const value = JSON.parse(match[2]!) as unknown;
      return { version: Number(match[1]), record: value === 'missing' ? 'missing' : apiKeyCacheRecordSchema.parse(value), ttlSeconds };
    },
    async restart(env) {
      await harness.stopService();
      service = await startKeysService(keysConfig(database, prefix, env ?? options.env), logger, cache, bus);
    },
    async stopService() {
      const running = service;
      service = null;
      await running?.close();
    },
    stop: cleanup,
  };
  return harness;
}

export interface ApiKeyRow {
  id: string;
  key: string;
  secret_hash: string;
  name: string;
  scopes: string[];
  owner_user_id: number | null;
  environment: string;
  revoked_at: Date | null;
  version: number;
}

export async function findRow(db: Db, key: string): Promise<ApiKeyRow | null> {
  const { rows } = await db.query<ApiKeyRow>(
    'SELECT id, key, secret_hash, name, scopes, owner_user_id, environment, revoked_at, version FROM api_keys WHERE key = $1',
    [key],
  );
  return rows[0] ?? null;
}

/** Every column of every row as text: to prove a value is stored nowhere. */
export async function tableText(db: Db): Promise<string> {
  const { rows } = await db.query<{ t: string }>("SELECT coalesce(string_agg(row_to_json(k)::text, E'\\n'), '') AS t FROM api_keys k");
  return rows[0]!.t;
}

export const sha256 = (text: string): string => createHash('sha256').update(text).digest('base64url');

let nameCounter = 0;

/** Input for createApiKey with a unique name; override any field. */
export function buildKeyInput(overrides: Partial<CreateKeyInput> = {}): CreateKeyInput {
  nameCounter += 1;
  return {
    name: `test key ${nameCounter}-${randomBytes(3).toString('hex')}`,
    scopes: ['read:devices'],
    ownerUserId: 1000 + nameCounter,
    environment: 'live',
    ...overrides,
  };
}

/** A key of this deployment's format that no one created. */
export function unknownKey(prefix = 'acs', environment: 'live' | 'test' = 'live'): string {
  return `${prefix}_${environment}_${randomBytes(18)
    .toString('base64url')
    .replace(/[^A-Za-z0-9]/g, 'x')}`;
}

/** A seed secret of the required length. */
export const newSecret = (): string => randomBytes(32).toString('base64url');

/** Open connections to the database, counted from the server's maintenance database (a leaked pool shows up here). */
export async function connectionsTo(database: TestDatabase): Promise<number> {
  const client = new pg.Client({ connectionString: testServerUrl('DATABASE_URL') });
  await client.connect();
  try {
    const name = new URL(database.url).pathname.slice(1);
    const { rows } = await client.query<{ n: string }>('SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1', [name]);
    return Number(rows[0]!.n);
  } finally {
    await client.end();
  }
}
