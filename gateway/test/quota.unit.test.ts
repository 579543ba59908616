import { describe, expect, it } from '@jest/globals';
import { createMemoryCache } from '@acs/cache';
import { createLogger } from '@acs/logger';
import type { AuthzRecord, QuotaThresholdCrossing, UserQuota } from '@acs/contracts';
import { QuotaLimiter } from '../src/limits/quota-limiter.js';
import { crossingsOf, quotaCountersAt, quotaPlanOf, quotaVerdict } from '../src/limits/quota.js';

const record = (quota: UserQuota | null | undefined): AuthzRecord => ({
  userId: 42,
  accountRole: 0,
  trialEndsAt: null,
  subscriptionEndsAt: null,
  planType: 1,
  disabled: false,
  ...(quota === undefined ? {} : { quota }),
});
const NOW = Date.parse('2026-02-10T12:00:00Z');

describe('quota plans and counters', () => {
  it('a record without a quota, or without a cap, has no plan; day first, then month', () => {
    expect(quotaPlanOf(record(undefined))).toBeNull();
    expect(quotaPlanOf(record(null))).toBeNull();
    expect(quotaPlanOf(record({ plan: 'none', perMonth: null, perDay: null }))).toBeNull();
    const plan = quotaPlanOf(record({ plan: 'monthly', perMonth: 1000, perDay: 50 }))!;
    expect(plan.periods).toEqual([
      { period: 'day', limit: 50 },
      { period: 'month', limit: 1000 },
    ]);
    const counters = quotaCountersAt(plan, NOW);
    expect(counters.names).toEqual(['quota:{42}:d:2026-02-10', 'quota:{42}:m:2026-02']);
    expect(counters.ends.map((end) => new Date(end).toISOString())).toEqual(['2026-02-11T00:00:00.000Z', '2026-03-01T00:00:00.000Z']);
    // Reused within the day; new names the next day.
    expect(quotaCountersAt(plan, NOW + 3_600_000)).toBe(counters);
    expect(quotaCountersAt(plan, NOW + 86_400_000).names[0]).toBe('quota:{42}:d:2026-02-11');
  });

  it('admits while every count is within its cap; reports the tightest, a refusal names the refusing period and its reset', () => {
    const plan = quotaPlanOf(record({ plan: 'monthly', perMonth: 1000, perDay: 50 }))!;
    const counters = quotaCountersAt(plan, NOW);
    expect(quotaVerdict(plan, counters, [10, 995], NOW)).toEqual({ admitted: true, period: 1, remaining: 5, resetSeconds: 1_598_400 });
    expect(quotaVerdict(plan, counters, [50, 60], NOW)).toEqual({ admitted: true, period: 0, remaining: 0, resetSeconds: 43_200 });
    expect(quotaVerdict(plan, counters, [51, 60], NOW)).toEqual({ admitted: false, period: 0, remaining: 0, resetSeconds: 43_200 });
    expect(quotaVerdict(plan, counters, [51, 1001], NOW)).toMatchObject({ admitted: false, period: 1, resetSeconds: 1_598_400 });
  });

  it('names the request whose count is exactly 80, 90 or 100 % of a cap (rounded up)', () => {
    const plan = quotaPlanOf(record({ plan: 'monthly', perMonth: 1000, perDay: 5 }))!;
    const counters = quotaCountersAt(plan, NOW);
    expect(crossingsOf(plan, counters, [3, 799])).toEqual([]);
    expect(crossingsOf(plan, counters, [4, 800])).toEqual([
      { userId: 42, plan: 'monthly', period: 'day', periodStart: '2026-02-10', percent: 80, quota: 5 },
      { userId: 42, plan: 'monthly', period: 'month', periodStart: '2026-02', percent: 80, quota: 1000 },
    ]);
    expect(crossingsOf(plan, counters, [5, 1000]).map((c) => `${c.period} ${c.percent}`)).toEqual(['day 90', 'day 100', 'month 100']);
  });
});

describe('QuotaLimiter on the in-process cache (the embedded mode)', () => {
  it('counts in process, keeps the count where keys reads it, and reports each threshold once', async () => {
    const cache = createMemoryCache();
    const crossings: QuotaThresholdCrossing[] = [];
    const limiter = new QuotaLimiter(cache, 1, createLogger({ name: 'test', level: 'silent' }), {
      quotaThreshold: (c) => crossings.push(c),
    });
    const plan = quotaPlanOf(record({ plan: 'trial', perMonth: 10, perDay: null }))!;
    const verdicts: boolean[] = [];
    for (let i = 0; i < 12; i++) {
      const { decision, counted } = await limiter.count(plan, false);
      verdicts.push(decision.verdict.admitted);
      if (decision.verdict.admitted) limiter.admitted(decision);
      else if ('local' in counted) for (const id of counted.ids) counted.local.refund(id);
    }
    expect(verdicts).toEqual([...Array(10).fill(true), false, false]);
    expect(crossings.map((c) => c.percent)).toEqual([80, 90, 100]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(await cache.get(quotaCountersAt(plan, Date.now()).names[0]!)).toBe('10');
    await cache.close();
  });
});
