import { describe, expect, it } from '@jest/globals';
import { LocalWindows } from '../src/limits/local-windows.js';
import { rateLimitHeaders, windowName } from '../src/limits/rate-limit-headers.js';
import { periodStart, windowsVerdict } from '../src/limits/sliding-window.js';

const HOUR = [{ limit: 10, windowSeconds: 3600 }];
const T0 = 1_800_000_000_000; // a whole hour: periods of every window length up to a day start here

describe('windowsVerdict (the sliding-window counter the Redis INCRs and the in-process fallback share)', () => {
  it('admits while current + the still-sliding share of previous stays within the limit', () => {
    // 15 minutes into the hour: 3/4 of the previous hour's 8 still counts (6), plus 4 now = 10: the last that fits.
    expect(windowsVerdict(HOUR, [T0], [8], [4], T0 + 900_000)).toEqual({
      admitted: true,
      window: 0,
      remaining: 0,
      resetSeconds: 2700,
      retryAfterSeconds: 0,
    });
    const refused = windowsVerdict(HOUR, [T0], [8], [5], T0 + 900_000);
    expect(refused).toMatchObject({ admitted: false, window: 0, remaining: 0 });
    // Room for one more once the previous share drops from 6 to 5: 1/8 of the hour (450 s) later.
    expect(refused.retryAfterSeconds).toBe(450);
    expect(refused.resetSeconds).toBe(450);
  });

  it('exactly the limit fits in a fresh period, and remaining counts down to 0', () => {
    const remaining = [1, 2, 3].map((n) => windowsVerdict([{ limit: 3, windowSeconds: 60 }], [T0], [0], [n], T0 + 10_000).remaining);
    expect(remaining).toEqual([2, 1, 0]);
    expect(windowsVerdict([{ limit: 3, windowSeconds: 60 }], [T0], [0], [4], T0 + 10_000).admitted).toBe(false);
  });

  it('a period full on its own waits into the next one, until enough of it slid out', () => {
    // 4 of 4 used in this minute, 50 s in: the next minute starts in 10 s; then 1 + 4 × (60 - e)/60 <= 4 once e >= 15 s.
    const refused = windowsVerdict([{ limit: 4, windowSeconds: 60 }], [T0], [0], [5], T0 + 50_000);
    expect(refused.retryAfterSeconds).toBe(25);
    // And at that time, the request with the previous 4 fits.
    expect(windowsVerdict([{ limit: 4, windowSeconds: 60 }], [T0 + 60_000], [4], [1], T0 + 75_000).admitted).toBe(true);
    expect(windowsVerdict([{ limit: 4, windowSeconds: 60 }], [T0 + 60_000], [4], [1], T0 + 74_000).admitted).toBe(false);
  });

  it('reports the window with the least room, and on refusal the one that makes the client wait longest', () => {
    const windows = [
      { limit: 2, windowSeconds: 1 },
      { limit: 3, windowSeconds: 60 },
    ];
    expect(windowsVerdict(windows, [T0, T0], [0, 0], [1, 1], T0)).toMatchObject({ admitted: true, window: 0, remaining: 1 });
    expect(windowsVerdict(windows, [T0, T0], [0, 0], [2, 3], T0)).toMatchObject({
      admitted: true,
      window: 1,
      remaining: 0,
      resetSeconds: 60,
    });
    expect(windowsVerdict(windows, [T0, T0], [0, 0], [3, 4], T0)).toMatchObject({ admitted: false, window: 1 });
  });

  it('a share divides each limit, at least one stays', () => {
    expect(windowsVerdict(HOUR, [T0], [0], [5], T0, 1 / 2).admitted).toBe(true);
    expect(windowsVerdict(HOUR, [T0], [0], [6], T0, 1 / 2).admitted).toBe(false);
    expect(windowsVerdict([{ limit: 1, windowSeconds: 60 }], [T0], [0], [1], T0, 1 / 3).admitted).toBe(true);
  });

  it('periods start at multiples of their length since the epoch (a day at 00:00 UTC)', () => {
    expect(new Date(periodStart(86_400, Date.parse('2026-11-26T17:03:04.005Z'))).toISOString()).toBe('2026-11-26T00:00:00.000Z');
    expect(periodStart(60, T0 + 61_234)).toBe(T0 + 60_000);
  });
});

// The in-process counters (embedded mode, and each replica's share while Redis is down) on a clock the test moves.
function local() {
  let now = T0;
  const windows = new LocalWindows(() => now);
  return { windows, advance: (ms: number) => (now += ms) };
}

describe('LocalWindows', () => {
  it('admits the limit, refuses the rest without counting them, and lets room come back as the previous period slides out', () => {
    const { windows, advance } = local();
    const limit = [{ limit: 4, windowSeconds: 1 }];
    expect(Array.from({ length: 6 }, () => windows.take('k', limit).admitted)).toEqual([true, true, true, true, false, false]);
    // Next second, 250 ms in: 3/4 of the 4 still count (3): one more fits, not four.
    advance(1250);
    expect(Array.from({ length: 3 }, () => windows.take('k', limit).admitted)).toEqual([true, false, false]);
  });

  it('a share divides each limit, and refund gives one back', () => {
    const { windows } = local();
    expect(Array.from({ length: 6 }, () => windows.take('k', HOUR, 1 / 2).admitted).filter(Boolean)).toHaveLength(5);
    windows.refund('k');
    expect(windows.take('k', HOUR, 1 / 2).admitted).toBe(true);
    expect(windows.take('other', HOUR).admitted).toBe(true);
  });

  it('keys state by the window, so 3/3600s used up then 4/3600s admits exactly one more, and 2/3600s none (issue 24)', () => {
    const { windows } = local();
    const take = (limit: number) => windows.take('k', [{ limit, windowSeconds: 3600 }]).admitted;
    expect([take(3), take(3), take(3), take(3)]).toEqual([true, true, true, false]);
    expect([take(4), take(4), take(4)]).toEqual([true, false, false]);
    expect(take(2)).toBe(false);
    // Another window length is another budget.
    expect(windows.take('k', [{ limit: 1, windowSeconds: 60 }]).admitted).toBe(true);
  });
});

describe('RateLimit headers (draft-ietf-httpapi-ratelimit-headers-11)', () => {
  it('name windows by their length and report the tightest one', () => {
    expect([1, 59, 60, 300, 3600, 7200, 86_400, 90].map(windowName)).toEqual(['1s', '59s', '1m', '5m', '1h', '2h', '1d', '90s']);
    const windows = [
      { limit: 20, windowSeconds: 1 },
      { limit: 50_000, windowSeconds: 86_400 },
    ];
    expect(rateLimitHeaders(windows, { admitted: true, window: 1, remaining: 7, resetSeconds: 5, retryAfterSeconds: 0 })).toEqual({
      'ratelimit-policy': '"1s";q=20;w=1, "1d";q=50000;w=86400',
      ratelimit: '"1d";r=7;t=5',
    });
    expect(rateLimitHeaders(windows, { admitted: false, window: 0, remaining: 0, resetSeconds: 1, retryAfterSeconds: 1 })).toMatchObject({
      ratelimit: '"1s";r=0;t=1',
      'retry-after': '1',
    });
  });
});
