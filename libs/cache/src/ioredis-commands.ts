import type { Attributes } from '@opentelemetry/api';
import type { Cache } from './cache.js';
import type { CacheScripts } from './client-bounds.js';
import { tracedCommand } from './traced-command.js';
import { rethrowUnavailable } from './unavailable.js';
import { assertTtlSeconds } from './validation.js';
import { parseVersioned, parseVersionedList } from './versioned-entry.js';

/*
 * The Cache methods that are the same on a single Redis and on a Redis Cluster: ioredis' Redis and
 * Cluster share these commands, so redis-cache.ts and redis-cluster-cache.ts each call one function
 * here instead of writing the method body twice. What differs (the MGET path, confirmed writes on a
 * cluster) stays in each file.
 */

/** What both ioredis clients offer that the shared methods use (Redis and Cluster both fit). */
interface IoredisClient extends Pick<CacheScripts, 'cacheIncrWithTtl'> {
  readonly status: string;
  set(key: string, value: string): Promise<unknown>;
  set(key: string, value: string, mode: 'EX', seconds: number): Promise<unknown>;
  get(key: string): Promise<string | null>;
  ping(): Promise<string>;
  quit(): Promise<unknown>;
  disconnect(): void;
}

/** SET, with EX when a TTL is given (a positive whole number of seconds, checked before sending). */
async function setValue(client: IoredisClient, key: string, value: string, ttlSeconds: number | undefined): Promise<void> {
  if (ttlSeconds === undefined) {
    await client.set(key, value);
    return;
  }
  assertTtlSeconds(ttlSeconds);
  await client.set(key, value, 'EX', ttlSeconds);
}

/** INCR plus a TTL set on the first increment, in one script; the remaining TTL comes back in whole seconds. */
async function incrementWithTtl(client: IoredisClient, key: string, ttlSeconds: number): Promise<{ count: number; ttlSeconds: number }> {
  assertTtlSeconds(ttlSeconds);
  const [count, pttlMs] = await client.cacheIncrWithTtl(key, ttlSeconds);
  return { count, ttlSeconds: Math.ceil(pttlMs / 1000) };
}

// Module-level reply mappers so the per-call path creates no closures.
function isPong(reply: string): boolean {
  return reply === 'PONG';
}
function toFalse(): boolean {
  return false;
}

/** True when the server (or the cluster node asked) answers PING; false on any error. */
function pingClient(client: IoredisClient): Promise<boolean> {
  return client.ping().then(isPong, toFalse);
}

/** QUIT waits for replies still in flight; when not connected there is nothing to wait for, so just drop the socket(s). */
export async function closeClient(client: IoredisClient): Promise<void> {
  if (client.status === 'ready') {
    try {
      await client.quit();
      return;
    } catch {
      // The connection (or a cluster node) broke during QUIT: fall through and make sure it stays down.
    }
  }
  client.disconnect();
}

/**
 * Wraps the named methods of a cache in a CLIENT span named after the Redis command each sends
 * (tracedCommand), and turns a connection failure into a dependency-unavailable error (503).
 */
export function traceCacheMethods(cache: Cache, server: Attributes, tracedAs: Partial<Record<keyof Cache, string>>): Cache {
  for (const [name, command] of Object.entries(tracedAs) as [keyof Cache, string][]) {
    const call = cache[name] as (...args: unknown[]) => Promise<unknown>;
    (cache as unknown as Record<string, unknown>)[name] = (...args: unknown[]) =>
      tracedCommand(server, command, () => call(...args)).catch(rethrowUnavailable);
  }
  return cache;
}

/** The Cache methods whose bodies are the same on both clients, given the client and its MGET path. */
type SharedCacheMethods = Pick<Cache, 'get' | 'set' | 'getVersioned' | 'mgetVersioned' | 'incrWithTtl' | 'ping'>;

export function sharedCacheMethods(
  client: IoredisClient,
  mget: (keys: readonly string[]) => Promise<(string | null)[]>,
): SharedCacheMethods {
  return {
    get: (key) => client.get(key),
    set: (key, value, ttlSeconds) => setValue(client, key, value, ttlSeconds),
    getVersioned: (key) => client.get(key).then(parseVersioned),
    mgetVersioned: (keys) => mget(keys).then(parseVersionedList),
    incrWithTtl: (key, ttlSeconds) => incrementWithTtl(client, key, ttlSeconds),
    ping: () => pingClient(client),
  };
}
