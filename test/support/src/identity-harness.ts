import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';
import { exportJWK, generateKeyPair } from 'jose';
import type { Bus } from '@acs/bus';
import { createRedisCache, type Cache } from '@acs/cache';
import { AUTHZ_LOOKUP_PATH, JWKS_PATH, authzCacheKey, authzRecordSchema, type AuthzRecord } from '@acs/contracts';
import type { Db } from '@acs/db';
import type { Logger } from '@acs/logger';
import { createTestDatabase, deleteRedisKeys, signedFetch, testServerUrl, uniqueName, type TestDatabase } from '@acs/testing';
import {
  identityConfigSchema,
  startIdentityService,
  type IdentityConfig,
  type IdentityDeps,
  type IdentityService,
} from '@acs/identity-service';
import { captureLogger as captureLines, silentLogger as silent, unusedPort, type LogLine } from '@acs/testing';

export type { LogLine };
export const silentLogger = (): Logger => silent('identity-test');
export const captureLogger = (name = 'identity-test') => captureLines(name, 'debug');

export const INTERNAL_SECRET = `identity-test-secret-${randomBytes(16).toString('hex')}`;
export const REDIS_URL = testServerUrl('REDIS_URL');
export const REGISTER_PATH = '/api/Users/Register';
export const LOGIN_PATH = '/api/Users/Login';

/** A Redis client without prefix: to see exactly what the service wrote. */
function rawRedis(): Redis {
  return new Redis(REDIS_URL, { maxRetriesPerRequest: 1, connectTimeout: 2_000 });
}

/** A Redis URL on which nothing listens (a port that was free a moment ago). */
export async function closedRedisUrl(): Promise<string> {
  return `redis://127.0.0.1:${await unusedPort()}`;
}

/** A fresh Ed25519 signing key as JWT_SIGNING_KEY wants it, and its public half. */
export async function newSigningKey(
  kid = `test-${randomBytes(4).toString('hex')}`,
): Promise<{ env: string; privateJwk: Record<string, unknown>; publicJwk: Record<string, unknown> }> {
  const { privateKey, publicKey } = await generateKeyPair('EdDSA', { extractable: true });
  const privateJwk = { ...(await exportJWK(privateKey)), kid };
  const publicJwk = { ...(await exportJWK(publicKey)), kid };
  return { env: JSON.stringify(privateJwk), privateJwk, publicJwk };
}

let sharedKey: Promise<string> | undefined;
/** One signing key per test file: generating one per service start would only add time. */
const testSigningKey = (): Promise<string> => (sharedKey ??= newSigningKey().then((key) => key.env));

/** The service's configuration for a test; a variable given as '' is unset, as parseConfig treats it. */
export async function identityConfig(database: TestDatabase, prefix: string, env: Record<string, string> = {}): Promise<IdentityConfig> {
  const merged: Record<string, string> = {
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    DATABASE_URL: database.url,
    REDIS_URL,
    REDIS_PREFIX: prefix,
    INTERNAL_SECRET,
    BCRYPT_COST: '4',
    // Tests register many accounts from one (unnamed) address; registration.security.test.ts tests the limit.
    REGISTRATION_MAX_PER_ADDRESS: '100000',
    JWT_SIGNING_KEY: await testSigningKey(),
    ...env,
  };
  return identityConfigSchema.parse(Object.fromEntries(Object.entries(merged).filter(([, value]) => value !== '')));
}

export interface CachedAuthz {
  version: number;
  record: AuthzRecord;
  ttlSeconds: number;
}

export interface IdentityHarness {
  database: TestDatabase;
  /** This run's Redis key prefix, e.g. `identity_123_ab12cd34:`. */
  prefix: string;
  cache: Cache;
  redis: Redis;
  service: IdentityService;
  deps: IdentityDeps;
  url: string;
  db: Db;
  /** POST /api/Users/Register as the gateway forwards it. */
  register(body: unknown, options?: CallOptions): Promise<Response>;
  /** POST /api/Users/Login as the gateway forwards it (clientIp in the signed context). */
  login(body: unknown, options?: CallOptions): Promise<Response>;
  /** POST the authz lookup as the gateway calls it on a miss. */
  lookup(body: unknown): Promise<Response>;
  jwks(): Promise<Response>;
  /** The raw entry at `<prefix>authz:{<userId>}`, parsed; null when there is none. */
  cachedAuthz(userId: number): Promise<CachedAuthz | null>;
  restart(env?: Record<string, string>): Promise<void>;
  stopService(): Promise<void>;
  stop(): Promise<void>;
}

export interface CallOptions {
  clientIp?: string;
  headers?: Record<string, string>;
}

export interface StartIdentityOptions {
  env?: Record<string, string>;
  logger?: Logger;
  /** Used instead of the harness's Redis cache (it is not closed by the harness then). */
  cache?: Cache;
  /** Subscription events are consumed from it (owned by the caller). */
  bus?: Bus;
}

/** What every start of the service shares. */
interface ServiceParts {
  database: TestDatabase;
  prefix: string;
  logger: Logger;
  cache: Cache;
  bus: Bus | undefined;
  /** The environment of a start that names none. */
  env: Record<string, string> | undefined;
}

/** The harness's one changing part: the service, which a test may stop and start again. */
class ServiceSlot {
  private service: IdentityService | null = null;
  private readonly parts: ServiceParts;

  constructor(parts: ServiceParts) {
    this.parts = parts;
  }

  /** Starts the service; it is held before its events are ready, so it is closed even when they fail. */
  async start(env: Record<string, string> | undefined): Promise<void> {
    const { database, prefix, logger, cache, bus } = this.parts;
    this.service = await startIdentityService(await identityConfig(database, prefix, env), logger, cache, bus);
    await this.service.eventsReady;
  }

  get running(): IdentityService {
    if (!this.service) throw new Error('the identity service is stopped');
    return this.service;
  }

  /** Lets go of the service, then closes it (stopService). */
  async stop(): Promise<void> {
    const running = this.service;
    this.service = null;
    await running?.close();
  }

  /** Closes the service, then lets go of it (the harness's stop). */
  async close(): Promise<void> {
    await this.service?.close();
    this.service = null;
  }
}

/** A call to the service as the gateway forwards it (signed, with clientIp in the context when given). */
function callIdentity(url: string, method: string, path: string, body: unknown, callOptions: CallOptions = {}): Promise<Response> {
  return signedFetch(url, INTERNAL_SECRET, method, path, {
    body,
    context: { keyId: 'test-key', scopes: [], ...(callOptions.clientIp ? { clientIp: callOptions.clientIp } : {}) },
    ...(callOptions.headers ? { headers: callOptions.headers } : {}),
  });
}

/** The raw entry at `<prefix>authz:{<userId>}`, parsed; null when there is none. */
async function readCachedAuthz(redis: Redis, prefix: string, userId: number): Promise<CachedAuthz | null> {
  const fullKey = `${prefix}${authzCacheKey(userId)}`;
  const [raw, ttlSeconds] = await Promise.all([redis.get(fullKey), redis.ttl(fullKey)]);
  if (raw === null) return null;
  const match = /^(\d+)\|(.*)$/s.exec(raw);
  if (!match) throw new Error(`not a versioned entry: ${raw}`);
  return { version: Number(match[1]), record: authzRecordSchema.strict().parse(JSON.parse(match[2]!)), ttlSeconds };
}

/** The harness over a started slot: service, deps, url and db are read from the running service at each use. */
function harnessOver(parts: ServiceParts, redis: Redis, slot: ServiceSlot, stop: () => Promise<void>): IdentityHarness {
  const call = (method: string, path: string, body: unknown, callOptions?: CallOptions) =>
    callIdentity(harness.url, method, path, body, callOptions);
  const harness: IdentityHarness = {
    database: parts.database,
    prefix: parts.prefix,
    cache: parts.cache,
    redis,
    get service() {
      return slot.running;
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
    register: (body, callOptions) => call('POST', REGISTER_PATH, body, callOptions),
    login: (body, callOptions) => call('POST', LOGIN_PATH, body, callOptions),
    lookup: (body) => call('POST', AUTHZ_LOOKUP_PATH, body),
    jwks: () => call('GET', JWKS_PATH, undefined),
    cachedAuthz: (userId) => readCachedAuthz(redis, parts.prefix, userId),
    async restart(env) {
      await harness.stopService();
      await slot.start(env ?? parts.env);
    },
    stopService: () => slot.stop(),
    stop,
  };
  return harness;
}

/** An identity service on a fresh database, writing through to real Redis under a prefix of its own. */
export async function startIdentity(options: StartIdentityOptions = {}): Promise<IdentityHarness> {
  const database = await createTestDatabase('identity');
  const prefix = `${uniqueName('identity')}:`;
  const logger = options.logger ?? silentLogger();
  const cache = options.cache ?? createRedisCache({ url: REDIS_URL, keyPrefix: prefix, logger });
  const parts: ServiceParts = { database, prefix, logger, cache, bus: options.bus, env: options.env };
  const redis = rawRedis();
  const slot = new ServiceSlot(parts);
  const cleanup = async (): Promise<void> => {
    await slot.close();
    if (!options.cache) await cache.close();
    redis.disconnect();
    await deleteRedisKeys(prefix);
    await database.drop();
  };
  try {
    await slot.start(options.env);
  } catch (err) {
    await cleanup();
    throw err;
  }
  return harnessOver(parts, redis, slot, cleanup);
}

export interface UserRow {
  id: number;
  email: string;
  password_hash: string;
  first_name: string;
  last_name: string;
  account_role: number;
  trial_ends_at: Date | null;
  subscription_ends_at: Date | null;
  plan_type: number;
  version: number;
}

export async function findRow(db: Db, email: string): Promise<UserRow | null> {
  const { rows } = await db.query<UserRow>(
    'SELECT id::int AS id, email, password_hash, first_name, last_name, account_role, trial_ends_at, subscription_ends_at, plan_type, version::int AS version FROM users WHERE lower(email) = lower($1)',
    [email],
  );
  return rows[0] ?? null;
}

export async function countUsers(db: Db): Promise<number> {
  const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM users');
  return rows[0]!.n;
}

let counter = 0;

/** A unique e-mail address (mixed case on purpose: it is stored as given). */
export function uniqueEmail(tag = 'user'): string {
  counter += 1;
  return `${tag}.${counter}.${randomBytes(4).toString('hex')}@Example.test`;
}

/** A password that meets the policy and appears in no list. */
export const strongPassword = (): string => `Vinyl crackle ${randomBytes(6).toString('base64url')} at dusk`;

export interface RegisterBody {
  email: string;
  password: string;
  firstName: string;
  lastName: string;
}

export function buildRegisterBody(overrides: Partial<RegisterBody> & Record<string, unknown> = {}): RegisterBody & Record<string, unknown> {
  return { email: uniqueEmail(), password: strongPassword(), firstName: 'Ada', lastName: 'Lovelace', ...overrides };
}

/** Registers through the API and returns the body it sent and the 201 answer. */
export async function registered(
  identity: IdentityHarness,
  overrides: Partial<RegisterBody> = {},
): Promise<{
  body: RegisterBody;
  user: { id: number; email: string; role: number; isTrialSubscription: boolean; trialExpiresAt: string | null };
}> {
  const body = buildRegisterBody(overrides);
  const response = await identity.register(body);
  if (response.status !== 201) throw new Error(`register answered ${response.status}: ${await response.text()}`);
  return { body, user: (await response.json()) as never };
}

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

/** Wraps deps.passwords.verify to count bcrypt comparisons while `fn` runs. */
export async function countPasswordChecks(identity: IdentityHarness, fn: () => Promise<void>): Promise<number> {
  const passwords = identity.deps.passwords;
  let count = 0;
  identity.deps.passwords = {
    ...passwords,
    verify: (password, hash) => {
      count += 1;
      return passwords.verify(password, hash);
    },
  };
  try {
    await fn();
  } finally {
    identity.deps.passwords = passwords;
  }
  return count;
}
