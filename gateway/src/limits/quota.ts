import {
  QUOTA_THRESHOLD_PERCENTS,
  quotaCounterKey,
  quotaPeriodStart,
  type AuthzRecord,
  type QuotaPeriod,
  type QuotaThresholdCrossing,
} from '@acs/contracts';

/*
 * Plan quotas (issue 29), decided in the gateway like the per-key limits: the user's counters per UTC day and
 * month (`quota:{<userId>}:d|m:<period start>`, the hash tag of `authz:{<userId>}`, so they travel with the
 * user's record read) are INCR'd in the request's one round trip; the INCR's reply is the count with this
 * request, so the decision is exact across replicas and the request that crosses 80/90/100 % is known.
 */

export interface QuotaPlan {
  userId: number;
  /** What the 429 hint names: the plan id, "trial" or "none". */
  plan: string;
  /** The caps that apply, day first. */
  periods: readonly { period: QuotaPeriod; limit: number }[];
  /** Per period, the counts that reach 80, 90 and 100 % of its cap (rounded up). */
  thresholds: readonly (readonly number[])[];
  at: QuotaCounters | null;
}

/** The counters of the periods `now` falls in: their names, starts (as the keys name them) and bounds. */
export interface QuotaCounters {
  names: readonly string[];
  starts: readonly string[];
  /** Period bounds (ms): the counters hold from `from` until the earliest end. */
  begins: readonly number[];
  ends: readonly number[];
  from: number;
  until: number;
  /** The last count Redis answered for each counter (0 until one did): the base of the in-process fallback. */
  seen: number[];
}

export interface QuotaVerdict {
  admitted: boolean;
  /** The period the RateLimit header reports: the refusing one (the later reset), or the one with least room. */
  period: number;
  remaining: number;
  /** Seconds until that period resets (whole, at least 1): also the Retry-After of a refusal. */
  resetSeconds: number;
}

/** A counter is kept a week past its period, for the keys service's usage pages. */
const COUNTER_KEPT_MS = 7 * 86_400_000;
const DAY_MS = 86_400_000;

const plans = new WeakMap<AuthzRecord, QuotaPlan | null>();

/** The record's quota, null when it has none (or no cap in it). Made once per record (records are parsed once per entry). */
export function quotaPlanOf(record: AuthzRecord): QuotaPlan | null {
  let plan = plans.get(record);
  if (plan === undefined) {
    const quota = record.quota;
    const periods: { period: QuotaPeriod; limit: number }[] = [];
    if (quota?.perDay) periods.push({ period: 'day', limit: quota.perDay });
    if (quota?.perMonth) periods.push({ period: 'month', limit: quota.perMonth });
    const thresholds = periods.map(({ limit }) => QUOTA_THRESHOLD_PERCENTS.map((percent) => Math.ceil((limit * percent) / 100)));
    plan = quota && periods.length > 0 ? { userId: record.userId, plan: quota.plan, periods, thresholds, at: null } : null;
    plans.set(record, plan);
  }
  return plan;
}

function bounds(period: QuotaPeriod, now: number): [number, number] {
  if (period === 'day') {
    const begin = now - (now % DAY_MS);
    return [begin, begin + DAY_MS];
  }
  const date = new Date(now);
  return [Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1), Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1)];
}

/** The counters for `now`, reused until a period ends. */
export function quotaCountersAt(plan: QuotaPlan, now: number): QuotaCounters {
  const at = plan.at;
  if (at !== null && now >= at.from && now < at.until) return at;
  const ranges = plan.periods.map(({ period }) => bounds(period, now));
  const starts = plan.periods.map(({ period }) => quotaPeriodStart(period, now));
  const fresh: QuotaCounters = {
    names: plan.periods.map(({ period }, i) => quotaCounterKey(plan.userId, period, starts[i]!)),
    starts,
    begins: ranges.map(([begin]) => begin),
    ends: ranges.map(([, end]) => end),
    from: Math.max(...ranges.map(([begin]) => begin)),
    until: Math.min(...ranges.map(([, end]) => end)),
    seen: plan.periods.map(() => 0),
  };
  plan.at = fresh;
  return fresh;
}

/** When a counter its INCR just created must expire (PEXPIREAT). */
export const quotaCounterExpiry = (counters: QuotaCounters, i: number): number => counters.ends[i]! + COUNTER_KEPT_MS;

/** The verdict from the counts with this request (the INCRs' replies, in the plan's order). */
export function quotaVerdict(plan: QuotaPlan, counters: QuotaCounters, counts: readonly number[], now: number): QuotaVerdict {
  let refused = -1;
  let tight = 0;
  let tightRemaining = -1;
  for (let i = 0; i < plan.periods.length; i++) {
    const remaining = plan.periods[i]!.limit - counts[i]!;
    if (remaining < 0) refused = i;
    else if (tightRemaining < 0 || remaining < tightRemaining) {
      tight = i;
      tightRemaining = remaining;
    }
  }
  const period = refused >= 0 ? refused : tight;
  return {
    admitted: refused < 0,
    period,
    remaining: refused >= 0 ? 0 : tightRemaining,
    resetSeconds: Math.max(1, Math.ceil((counters.ends[period]! - now) / 1000)),
  };
}

/** What nearly every request crossed: shared, so it costs no allocation. */
const NO_CROSSINGS: readonly QuotaThresholdCrossing[] = Object.freeze([]);

/**
 * The thresholds an admitted request crossed: its count is exactly the first one at or above a share of the
 * cap. Refused requests are given back, so a count is reached by one admitted request only.
 */
export function crossingsOf(plan: QuotaPlan, counters: QuotaCounters, counts: readonly number[]): readonly QuotaThresholdCrossing[] {
  let crossed: QuotaThresholdCrossing[] | null = null;
  for (let i = 0; i < plan.periods.length; i++) {
    const thresholds = plan.thresholds[i]!;
    // Below the lowest threshold (nearly every request): nothing to look at.
    if (counts[i]! < thresholds[0]!) continue;
    const { period, limit } = plan.periods[i]!;
    for (let t = 0; t < thresholds.length; t++) {
      if (counts[i] !== thresholds[t]) continue;
      const percent = QUOTA_THRESHOLD_PERCENTS[t]!;
      crossed ??= [];
      crossed.push({ userId: plan.userId, plan: plan.plan, period, periodStart: counters.starts[i]!, percent, quota: limit });
    }
  }
  return crossed ?? NO_CROSSINGS;
}

/** Whether two plans of one user count in the same counters (the same periods): a changed cap is decided on the counts. */
export const sameQuotaCounters = (plan: QuotaPlan, other: QuotaPlan): boolean =>
  plan === other ||
  (plan.userId === other.userId &&
    plan.periods.length === other.periods.length &&
    plan.periods.every((p, i) => p.period === other.periods[i]!.period));
