import type { RateLimitWindow } from '@acs/contracts';
import type { LocalCounters } from './counted.js';
import { periodStart, windowsVerdict, type LimitVerdict } from './sliding-window.js';

/** One window's counters in process: the running period's start (ms), its count and the previous period's. */
interface LocalPeriod {
  start: number;
  current: number;
  previous: number;
}

/**
 * The same sliding-window counters as Redis (sliding-window.ts), in process: used when the cache has no
 * per-request exchange (the embedded default, one process) and, at each replica's share, while Redis is
 * unreachable. State per key id and window length (not the limit's text), so a changed count keeps what the
 * window used, as in Redis (issue 24).
 */
export class LocalWindows implements LocalCounters {
  private readonly state = new Map<string, Map<number, LocalPeriod>>();
  private lastSweep = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** Counts the request in every window if all have room; `share` divides every limit (at least 1 stays). */
  take(id: string, windows: readonly RateLimitWindow[], share = 1): LimitVerdict {
    const now = this.now();
    this.sweep(now);
    let stored = this.state.get(id);
    if (!stored) {
      stored = new Map();
      this.state.set(id, stored);
    }
    const periods = windows.map(({ windowSeconds }) => rolled(stored, windowSeconds, now));
    const verdict = windowsVerdict(
      windows,
      periods.map((p) => p.start),
      periods.map((p) => p.previous),
      periods.map((p) => p.current + 1),
      now,
      share,
    );
    if (verdict.admitted) for (const period of periods) period.current++;
    return verdict;
  }

  /** Gives back one admitted request (a later check refused it). */
  refund(id: string): void {
    const stored = this.state.get(id);
    if (stored) for (const period of stored.values()) if (period.current > 0) period.current--;
  }

  /** Forgets keys idle for a day (the longest window), at most once a minute, so memory stays bounded. */
  private sweep(now: number): void {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    for (const [id, stored] of this.state) {
      let idle = true;
      for (const [seconds, period] of stored) if (period.start + 2 * seconds * 1000 > now) idle = false;
      if (idle) this.state.delete(id);
    }
  }
}

/** The window's period at `now`: moved on when a new period began (the running one becomes the previous). */
function rolled(stored: Map<number, LocalPeriod>, windowSeconds: number, now: number): LocalPeriod {
  const start = periodStart(windowSeconds, now);
  const period = stored.get(windowSeconds);
  if (period === undefined) {
    const fresh = { start, current: 0, previous: 0 };
    stored.set(windowSeconds, fresh);
    return fresh;
  }
  if (period.start !== start) {
    period.previous = start - period.start === windowSeconds * 1000 ? period.current : 0;
    period.current = 0;
    period.start = start;
  }
  return period;
}
