/**
 * The wait before the relay's next pass after `failures` failed passes in a row: retryMinMs,
 * doubling up to retryMaxMs, then a uniformly random point in its upper half, so replicas that
 * failed together do not all come back at the same instant.
 */
export function relayBackoffMs(failures: number, retryMinMs: number, retryMaxMs: number, random: () => number = Math.random): number {
  const base = Math.min(retryMaxMs, retryMinMs * 2 ** Math.min(Math.max(failures, 1) - 1, 20));
  return Math.round(base / 2 + random() * (base / 2));
}
