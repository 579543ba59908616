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

/** One window's state: its theoretical arrival time (ms) and the limit it was counted under. */
interface WindowState {
  tat: number;
  allowed: number;
}

/**
 * The same GCRA as the Redis script (limit-script.ts), in process: used when the cache has no scripts (the
 * embedded default, one process) and, at each replica's share, while Redis is unreachable. State per key
 * (its id), per window length: a changed count keeps what the window used, as in Redis.
 */
export class LocalGcra {
  private readonly state = new Map<string, Map<number, WindowState>>();
  private lastSweep = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** `share` divides every limit (at least 1 request per window stays), e.g. 1/replicas during a Redis outage. */
  take(id: string, windows: readonly RateLimitWindow[], share = 1): LimitVerdict {
    const now = this.now();
    this.sweep(now);
    const stored = this.state.get(id);
    const next = new Array<number>(windows.length);
    let refused = -1;
    let retry = 0;
    let tight = 0;
    let tightRemaining = -1;
    let tightReset = 0;
    for (let i = 0; i < windows.length; i++) {
      const { limit, windowSeconds } = windows[i]!;
      const allowed = allowedIn(limit, share);
      const period = windowSeconds * 1000;
      const interval = period / allowed;
      const previous = stored?.get(windowSeconds);
      // The backlog counted under another limit is rescaled: what the window used stays used.
      const tat = previous !== undefined && previous.tat > now ? now + ((previous.tat - now) * previous.allowed) / allowed : now;
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
    const updated = new Map<number, WindowState>();
    for (let i = 0; i < windows.length; i++) {
      const { limit, windowSeconds } = windows[i]!;
      updated.set(windowSeconds, { tat: next[i]!, allowed: allowedIn(limit, share) });
    }
    this.state.set(id, updated);
    return { admitted: true, window: tight, remaining: tightRemaining, resetSeconds: tightReset, retryAfterSeconds: 0 };
  }

  /** Gives back one admitted request (a later check refused it). */
  refund(id: string): void {
    const stored = this.state.get(id);
    if (!stored) return;
    for (const [windowSeconds, window] of stored) window.tat -= (windowSeconds * 1000) / window.allowed;
  }

  /** Forgets keys whose every window is full again, at most once a minute, so memory stays bounded. */
  private sweep(now: number): void {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    for (const [id, stored] of this.state) {
      let idle = true;
      for (const window of stored.values()) if (window.tat > now) idle = false;
      if (idle) this.state.delete(id);
    }
  }
}

const allowedIn = (limit: number, share: number): number => Math.max(1, Math.floor(limit * share));
