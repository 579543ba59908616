import type { Cache } from './cache.js';

/** The readiness check of a process that needs the shared cache (for /readyz): "ok" while it answers PING. */
export function cacheReadinessCheck(cache: Pick<Cache, 'ping'>): Record<'cache', () => Promise<string>> {
  return { cache: async () => ((await cache.ping()) ? 'ok' : 'not reachable') };
}
