import type { Cache } from '@acs/cache';
import type { IdentityDeps } from './deps.js';

/**
 * Runs `count` on the shared counters (Redis, so every replica sees the same counts); when they
 * cannot be reached, on this process's own in-memory counters instead. Sign-in and registration
 * stay limited during a Redis outage (per process: N replicas allow N times the limits while it
 * lasts) instead of failing for everyone or going unlimited. The store that answered is returned,
 * so the attempt's later writes go to the same place.
 */
export async function countOnLimiterStore<T>(
  deps: Pick<IdentityDeps, 'cache' | 'localLimiter' | 'logger' | 'metrics'>,
  count: (store: Cache) => Promise<T>,
): Promise<{ store: Cache; counts: T; local: boolean }> {
  try {
    return { store: deps.cache, counts: await count(deps.cache), local: false };
  } catch (err) {
    deps.logger.warn({ err }, 'sign-in limits: the shared counters (Redis) could not be reached; counting on this process only');
    deps.metrics.localLimiterUsed();
    return { store: deps.localLimiter, counts: await count(deps.localLimiter), local: true };
  }
}
