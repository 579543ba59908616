import type { RateLimitWindow } from '@acs/contracts';

/** What one limit decision tells the handler: admitted or not, and what the RateLimit headers say. */
export interface LimitVerdict {
  admitted: boolean;
  /** Index (0-based) of the window the RateLimit header reports: the refusing one, or the one with least room. */
  window: number;
  remaining: number;
  /** Seconds until that window ends (admitted), or until a request would be admitted (refused). */
  resetSeconds: number;
  /** Whole seconds until a request would be admitted; 0 when admitted. */
  retryAfterSeconds: number;
}

/*
 * The sliding-window counter (docs/api-keys-and-limits.md): each window of `seconds` is cut into fixed periods
 * aligned to the Unix epoch (a day at 00:00 UTC), each with its own counter. A request's count is
 *   current + previous × (the share of the previous period still inside the sliding window)
 * where `current` is the counter of the period now running, this request included (the INCR's reply), and
 * `previous` the one before. So room comes back steadily as the previous period slides out, with no burst
 * at a period's edge for a steady client, and no Lua: Redis only increments and reads counters.
 */

/** The limit at a replica's share (1/GATEWAY_REPLICAS during a Redis outage), never below 1. */
const limitAt = (limit: number, share: number): number => (share === 1 ? limit : Math.max(1, Math.floor(limit * share)));

/** Milliseconds until one more request fits: the previous period must slide out far enough (or the current one end). */
function waitMs(limit: number, periodMs: number, elapsedMs: number, previous: number, before: number): number {
  const left = periodMs - elapsedMs;
  // Within this period: before + 1 + previous × (left - w) / period ≤ limit.
  if (before + 1 <= limit && previous > 0) return Math.max(1, left - ((limit - before - 1) * periodMs) / previous);
  // In the next period, this one becomes the previous: 1 + before × (period - e) / period ≤ limit.
  return left + Math.max(0, periodMs * (1 - (limit - 1) / before));
}

/**
 * The verdict on one request over every window of a key. `starts[i]` is the start (ms) of window i's current
 * period, `current[i]` its counter with this request, `previous[i]` the counter of the period before. Admitted
 * when every window has room; the headers then report the window with the least room (ties: the later reset),
 * a refusal the window that makes the client wait longest.
 */
export function windowsVerdict(
  windows: readonly RateLimitWindow[],
  starts: readonly number[],
  previous: readonly number[],
  current: readonly number[],
  now: number,
  share = 1,
): LimitVerdict {
  let refused = -1;
  let retry = 0;
  let tight = 0;
  let tightRemaining = -1;
  let tightReset = 0;
  for (let i = 0; i < windows.length; i++) {
    const limit = limitAt(windows[i]!.limit, share);
    const periodMs = windows[i]!.windowSeconds * 1000;
    const elapsed = now - starts[i]!;
    const count = current[i]! + (previous[i]! * (periodMs - elapsed)) / periodMs;
    // A hair of slack for floating-point error, so exactly `limit` requests fit.
    if (count > limit + 1e-9) {
      const wait = waitMs(limit, periodMs, elapsed, previous[i]!, current[i]! - 1);
      if (wait > retry) {
        retry = wait;
        refused = i;
      }
      continue;
    }
    const remaining = Math.floor(limit - count + 1e-9);
    const reset = Math.ceil((periodMs - elapsed) / 1000);
    if (tightRemaining < 0 || remaining < tightRemaining || (remaining === tightRemaining && reset > tightReset)) {
      tight = i;
      tightRemaining = remaining;
      tightReset = reset;
    }
  }
  if (refused >= 0) {
    const seconds = Math.max(1, Math.ceil(retry / 1000));
    return { admitted: false, window: refused, remaining: 0, resetSeconds: seconds, retryAfterSeconds: seconds };
  }
  return { admitted: true, window: tight, remaining: tightRemaining, resetSeconds: tightReset, retryAfterSeconds: 0 };
}

/** The start (ms, Unix epoch) of the period of `windowSeconds` that `now` falls in. */
export const periodStart = (windowSeconds: number, now: number): number => now - (now % (windowSeconds * 1000));
