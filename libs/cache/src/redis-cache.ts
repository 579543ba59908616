import { Redis } from 'ioredis';
import type { Logger } from '@acs/logger';
import type { Cache, CacheScript } from './cache.js';
import { RespError, type RespReply } from './resp-reader.js';
import { logConnectionEvents } from './connection-log.js';
import { MgetConnection } from './mget-connection.js';
import { singleNodeRequestReads } from './request-reads.js';
import { INCR_WITH_TTL_LUA, SET_IF_NEWER_LUA } from './redis-scripts.js';
import { assertTtlSeconds, assertVersion } from './validation.js';
import { closeClient, sharedCacheMethods, traceCacheMethods } from './ioredis-commands.js';
import { redisAttributes } from './traced-command.js';
import { COMMAND_TIMEOUT_MS, CONNECT_TIMEOUT_MS, MAX_RECONNECT_DELAY_MS, reconnectDelay, type CacheScripts } from './client-bounds.js';

export interface RedisCacheOptions {
  /** redis:// or rediss:// URL (user, password and db index included). */
  url: string;
  /** Prepended to every key, script KEYS included. Include your own separator, e.g. `acs:`. */
  keyPrefix?: string;
  /** Connection errors go here (once per outage); without it, to stderr. */
  logger?: Logger;
}

/*
 * Fail closed, fast: the gateway waits on this for every request, so during an outage a call must reject in about
 * a second (the gateway answers 503) instead of queueing until Redis returns. Each bound covers one way of hanging:
 * - connectTimeout: a TCP connect that never completes (packets dropped);
 * - maxRetriesPerRequest: commands queued while reconnecting are rejected after the next failed attempt;
 * - commandTimeout: everything else, e.g. a server that accepts the connection but never answers.
 * Reconnect backoff is capped low so the cache comes back within about a second of Redis coming back.
 */
const MAX_RETRIES_PER_REQUEST = 1;

// Module-level reply mappers so the per-call path creates no closures.
function toVoid(): void {}
const firstReply = (replies: RespReply[]): string | null => replies[0] as string | null;

/** The Redis command each method sends (the scripts run as EVALSHA), which names its span. */
const TRACED_AS = {
  get: 'GET',
  set: 'SET',
  del: 'DEL',
  setIfNewer: 'EVALSHA',
  getVersioned: 'GET',
  incrWithTtl: 'EVALSHA',
} as const;

/** The ioredis connection of the services' commands (GET, SET, DEL, the registered scripts, PING). */
function connectCommands(url: string, keyPrefix: string | undefined, logger: Logger | undefined): Redis & CacheScripts {
  const redis = new Redis(url, {
    // Many concurrent gateway requests share one round trip per event-loop turn.
    enableAutoPipelining: true,
    connectTimeout: CONNECT_TIMEOUT_MS,
    commandTimeout: COMMAND_TIMEOUT_MS,
    maxRetriesPerRequest: MAX_RETRIES_PER_REQUEST,
    retryStrategy: reconnectDelay,
    ...(keyPrefix ? { keyPrefix } : {}),
    scripts: {
      cacheSetIfNewer: { lua: SET_IF_NEWER_LUA, numberOfKeys: 1 },
      cacheIncrWithTtl: { lua: INCR_WITH_TTL_LUA, numberOfKeys: 1 },
    },
  }) as Redis & CacheScripts;
  logConnectionEvents(redis, logger);
  return redis;
}

export function createRedisCache({ url, keyPrefix, logger }: RedisCacheOptions): Cache {
  const redis = connectCommands(url, keyPrefix, logger);
  // The gateway's per-request read gets a lean connection of its own (mget-connection.ts explains why).
  // It stays silent about outages: the ioredis connection above logs them once for both.
  const reads = new MgetConnection({
    url,
    keyPrefix,
    connectTimeoutMs: CONNECT_TIMEOUT_MS,
    commandTimeoutMs: COMMAND_TIMEOUT_MS,
    maxReconnectDelayMs: MAX_RECONNECT_DELAY_MS,
  });

  // MGET with no keys is a Redis syntax error; an empty batch is simply empty.
  function mgetRaw(keys: readonly string[]): Promise<(string | null)[]> {
    if (keys.length === 0) return Promise.resolve([]);
    return reads.mget(keys);
  }

  let closing: Promise<void> | undefined;

  // Redis forgets scripts when it restarts (or on SCRIPT FLUSH): then EVAL sends the source once, which also caches it again.
  function evalScript(script: CacheScript, keys: readonly string[], args: readonly string[]): Promise<RespReply[]> {
    return reads.evalArray('EVALSHA', script.sha, keys, args).catch((err: unknown) => {
      if (err instanceof RespError && err.message.startsWith('NOSCRIPT')) return reads.evalArray('EVAL', script.source, keys, args);
      throw err;
    });
  }

  // On the lean connection too: the gateway's Idempotency-Key claim, beside its per-request reads.
  function setIfAbsentOrGet(key: string, value: string, ttlMs: number): Promise<string | null> {
    return reads.batch(reads.keyCommand('SET', [key], [value, 'NX', 'PX', String(ttlMs), 'GET']), 1, firstReply);
  }

  const cache: Cache = {
    ...sharedCacheMethods(redis, mgetRaw),
    mget: mgetRaw,
    evalScript,
    setIfAbsentOrGet,
    requestReads: singleNodeRequestReads(reads),
    del(key) {
      return redis.del(key).then(toVoid);
    },
    async setIfNewer(key, version, value, ttlSeconds) {
      assertVersion(version);
      assertTtlSeconds(ttlSeconds);
      return (await redis.cacheSetIfNewer(key, version, value, ttlSeconds)) === 1;
    },
    close() {
      closing ??= Promise.all([reads.close(), closeClient(redis)]).then(toVoid);
      return closing;
    },
  };
  // The dedicated MGET connection marks its own errors (no extra promise on the gateway's hot path).
  // The services' writes and reads are traced here; the gateway traces its per-request read itself.
  return traceCacheMethods(cache, redisAttributes(url), TRACED_AS);
}
