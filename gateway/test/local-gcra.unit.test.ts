import { describe, expect, it } from '@jest/globals';
import { LocalGcra } from '../src/limits/gcra.js';
import { rateLimitHeaders, windowName } from '../src/limits/rate-limit-headers.js';

// The in-process GCRA (embedded mode, and each replica's share while Redis is down) on a clock the test moves.
function limiter() {
  let now = 1_000_000;
  const gcra = new LocalGcra(() => now);
  return { gcra, advance: (ms: number) => (now += ms) };
}

describe('LocalGcra', () => {
  it('admits exactly the limit at once, then one more per windowSeconds/limit, never a burst at a window edge', () => {
    const { gcra, advance } = limiter();
    const windows = [{ limit: 4, windowSeconds: 1 }];
    expect(Array.from({ length: 6 }, () => gcra.take('k', windows).admitted)).toEqual([true, true, true, true, false, false]);
    advance(249);
    expect(gcra.take('k', windows).admitted).toBe(false);
    advance(1);
    expect(gcra.take('k', windows).admitted).toBe(true);
    expect(gcra.take('k', windows).admitted).toBe(false);
    // A full second later, the window is full again: 4, not 8.
    advance(1000);
    expect(Array.from({ length: 6 }, () => gcra.take('k', windows).admitted)).toEqual([true, true, true, true, false, false]);
  });

  it('a refused request counts in no window; the verdict names the refusing window and when to retry', () => {
    const { gcra, advance } = limiter();
    const windows = [
      { limit: 2, windowSeconds: 1 },
      { limit: 3, windowSeconds: 60 },
    ];
    expect(gcra.take('k', windows)).toMatchObject({ admitted: true, window: 0, remaining: 1 });
    expect(gcra.take('k', windows)).toMatchObject({ admitted: true, remaining: 0 });
    expect(gcra.take('k', windows)).toEqual({ admitted: false, window: 0, remaining: 0, resetSeconds: 1, retryAfterSeconds: 1 });
    advance(1000);
    expect(gcra.take('k', windows)).toMatchObject({ admitted: true, window: 1, remaining: 0 });
    const refused = gcra.take('k', windows);
    expect(refused).toMatchObject({ admitted: false, window: 1 });
    expect(refused.retryAfterSeconds).toBe(19);
  });

  it('a share divides each limit (at least one stays), and refund gives one back', () => {
    const { gcra } = limiter();
    const windows = [{ limit: 10, windowSeconds: 3600 }];
    expect(Array.from({ length: 6 }, () => gcra.take('k', windows, 1 / 2).admitted).filter(Boolean)).toHaveLength(5);
    gcra.refund('k');
    expect(gcra.take('k', windows, 1 / 2).admitted).toBe(true);
    expect(gcra.take('small', [{ limit: 1, windowSeconds: 60 }], 1 / 3).admitted).toBe(true);
    expect(gcra.take('other', windows).admitted).toBe(true);
  });
});

describe('LocalGcra across an edit of a limit', () => {
  it('keys state by the window, so 3/3600s used up then 4/3600s admits exactly one more, and 2/3600s none', () => {
    const { gcra } = limiter();
    expect(Array.from({ length: 4 }, () => gcra.take('k', [{ limit: 3, windowSeconds: 3600 }]).admitted)).toEqual([
      true,
      true,
      true,
      false,
    ]);
    expect(Array.from({ length: 3 }, () => gcra.take('k', [{ limit: 4, windowSeconds: 3600 }]).admitted)).toEqual([true, false, false]);
    expect(gcra.take('k', [{ limit: 2, windowSeconds: 3600 }]).admitted).toBe(false);
    // Another window length is another budget.
    expect(gcra.take('k', [{ limit: 1, windowSeconds: 60 }]).admitted).toBe(true);
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
