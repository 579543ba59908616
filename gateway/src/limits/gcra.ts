import type { RateLimitWindow } from '@acs/contracts';

/** What one limit decision tells the handler: admitted or not, and what the RateLimit headers say. */
export interface LimitVerdict {
  admitted: boolean;
  /** Index (0-based) of the window the RateLimit header reports: the refusing one, or the one with least room. */
  window: number;
  remaining: number;
  /** Seconds until that window is full again (admitted), or until a request would be admitted (refused). */
  resetSeconds: number;
  /** Whole seconds until a request would be admitted; 0 when admitted. */
  retryAfterSeconds: number;
}

/**
 * The same GCRA as the Redis script (limit-script.ts), in process: used when the cache has no scripts (the
 * embedded default, one process) and, at each replica's share, while Redis is unreachable. State per key:
 * one theoretical arrival time per window, in milliseconds.
 */
export class LocalGcra {
  private readonly tats = new Map<string, number[]>();
  private lastSweep = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** `share` divides every limit (at least 1 request per window stays), e.g. 1/replicas during a Redis outage. */
  take(id: string, windows: readonly RateLimitWindow[], share = 1): LimitVerdict {
    const now = this.now();
    this.sweep(now);
    const state = this.tats.get(id);
    const next = new Array<number>(windows.length);
    let refused = -1;
    let retry = 0;
    let tight = 0;
    let tightRemaining = -1;
    let tightReset = 0;
    for (let i = 0; i < windows.length; i++) {
      const { limit, windowSeconds } = windows[i]!;
      const allowed = Math.max(1, Math.floor(limit * share));
      const period = windowSeconds * 1000;
      const interval = period / allowed;
      const tat = Math.max(state?.[i] ?? now, now);
      const newTat = tat + interval;
      const wait = newTat - period - now;
      if (wait > 0.001) {
        if (wait > retry) {
          retry = wait;
          refused = i;
        }
      } else {
        const remaining = Math.floor((period - (newTat - now)) / interval + 1e-6);
        const reset = Math.ceil((newTat - now) / 1000);
        if (tightRemaining < 0 || remaining < tightRemaining || (remaining === tightRemaining && reset > tightReset)) {
          tight = i;
          tightRemaining = remaining;
          tightReset = reset;
        }
      }
      next[i] = newTat;
    }
    if (refused >= 0) {
      const seconds = Math.ceil(retry / 1000);
      return { admitted: false, window: refused, remaining: 0, resetSeconds: seconds, retryAfterSeconds: seconds };
    }
    this.tats.set(id, next);
    return { admitted: true, window: tight, remaining: tightRemaining, resetSeconds: tightReset, retryAfterSeconds: 0 };
  }

  /** Gives back one admitted request (a later check refused it). */
  refund(id: string, windows: readonly RateLimitWindow[], share = 1): void {
    const state = this.tats.get(id);
    if (!state) return;
    for (let i = 0; i < windows.length && i < state.length; i++) {
      const { limit, windowSeconds } = windows[i]!;
      state[i]! -= (windowSeconds * 1000) / Math.max(1, Math.floor(limit * share));
    }
  }

  /** Forgets keys whose every window is full again, at most once a minute, so memory stays bounded. */
  private sweep(now: number): void {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    for (const [id, state] of this.tats) if (state.every((tat) => tat <= now)) this.tats.delete(id);
  }
}
