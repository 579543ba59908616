/*
 * The bounds both ioredis-backed caches share (redis-cache.ts, redis-cluster-cache.ts): fail closed,
 * fast. A connect that never completes and a command that is never answered each reject within about
 * a second (the gateway answers 503 or asks the owning service), and reconnects back off to at most a
 * second, so the cache comes back within about a second of Redis coming back.
 */
export const CONNECT_TIMEOUT_MS = 1_000;
export const COMMAND_TIMEOUT_MS = 1_000;
export const MAX_RECONNECT_DELAY_MS = 1_000;

/** Exponential from 50 ms, capped, with jitter so many clients do not reconnect in step. */
export function reconnectDelay(attempt: number): number {
  return Math.min(50 * 2 ** (attempt - 1), MAX_RECONNECT_DELAY_MS) + Math.floor(Math.random() * 100);
}

/** Typed view of the commands registered through the `scripts` option (ioredis adds them at runtime). */
export interface CacheScripts {
  cacheSetIfNewer(key: string, version: number, value: string, ttlSeconds: number): Promise<number>;
  cacheIncrWithTtl(key: string, ttlSeconds: number): Promise<[count: number, pttlMs: number]>;
}
