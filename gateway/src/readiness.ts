import { runChecks, type Readiness, type ReadinessCheck } from '@acs/http';

/** How long one round of upstream checks answers every /readyz call. */
export const READINESS_CACHE_MS = 1_000;

/**
 * The gateway's readiness: the cache and every upstream's own /readyz. One round of checks at a
 * time, and its answer reused for READINESS_CACHE_MS after it ends, so anonymous /readyz calls
 * cannot multiply the load on the services (at most one fan-out per second, however many calls).
 */
export function createCachedReadiness(
  checks: Record<string, ReadinessCheck>,
  now: () => number = performance.now.bind(performance),
): () => Promise<Readiness> {
  let last: { readiness: Readiness; at: number } | null = null;
  let running: Promise<Readiness> | null = null;
  return () => {
    if (last && now() - last.at < READINESS_CACHE_MS) return Promise.resolve(last.readiness);
    running ??= runChecks(checks).then((readiness) => {
      last = { readiness, at: now() };
      running = null;
      return readiness;
    });
    return running;
  };
}
