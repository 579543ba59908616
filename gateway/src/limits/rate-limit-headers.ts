import type { RateLimitWindow } from '@acs/contracts';
import type { QuotaDecision } from './quota-limiter.js';
import type { QuotaCounters, QuotaPlan } from './quota.js';
import type { LimitVerdict } from './sliding-window.js';

/*
 * Headers per draft-ietf-httpapi-ratelimit-headers-11: RateLimit-Policy lists every window of the key
 * ("<name>";q=<limit>;w=<seconds>) and then the owner's plan quota, one item per period ("quota-day",
 * "quota-month"; w: the period's length, a month's in seconds); RateLimit reports the window with the least room
 * ("<name>";r=<remaining>;t=<seconds until it ends, or until a request is admitted when refused>) and then the
 * quota period with the least room (t: seconds until it resets, at 00:00 UTC). A window's name is its length
 * ("1s", "5m", "1d"), unique within a key's list.
 */

const UNITS: readonly [number, string][] = [
  [86_400, 'd'],
  [3600, 'h'],
  [60, 'm'],
];

export function windowName(windowSeconds: number): string {
  for (const [seconds, unit] of UNITS) if (windowSeconds % seconds === 0) return `${windowSeconds / seconds}${unit}`;
  return `${windowSeconds}s`;
}

// The policy header of a list, made once per list (key records are parsed once per cache string; defaults once).
const policies = new WeakMap<readonly RateLimitWindow[], { policy: string; names: string[] }>();

function describe(windows: readonly RateLimitWindow[]): { policy: string; names: string[] } {
  let described = policies.get(windows);
  if (!described) {
    const names = windows.map((w) => `"${windowName(w.windowSeconds)}"`);
    described = { policy: windows.map((w, i) => `${names[i]};q=${w.limit};w=${w.windowSeconds}`).join(', '), names };
    policies.set(windows, described);
  }
  return described;
}

// A quota's policy items, made once per plan and period (a month's length changes its w).
const quotaPolicies = new WeakMap<QuotaCounters, string>();

function quotaPolicy(plan: QuotaPlan, counters: QuotaCounters): string {
  let policy = quotaPolicies.get(counters);
  if (policy === undefined) {
    policy = plan.periods
      .map(({ period, limit }, i) => `"quota-${period}";q=${limit};w=${Math.round((counters.ends[i]! - counters.begins[i]!) / 1000)}`)
      .join(', ');
    quotaPolicies.set(counters, policy);
  }
  return policy;
}

/** The two headers for the key's windows and the owner's quota (either may be absent), plus Retry-After when refused. */
export function rateLimitHeaders(
  windows: readonly RateLimitWindow[] | null,
  verdict: LimitVerdict | null,
  quota: QuotaDecision | null = null,
): Record<string, string> {
  // Strings joined by hand, not arrays: this runs on every limited request.
  let policy = '';
  let current = '';
  let retry = 0;
  if (windows !== null && verdict !== null) {
    const { policy: items, names } = describe(windows);
    policy = items;
    current = `${names[verdict.window] ?? names[0]};r=${verdict.remaining};t=${verdict.resetSeconds}`;
    if (!verdict.admitted) retry = Math.max(1, verdict.retryAfterSeconds);
  }
  if (quota !== null) {
    const { plan, counters, verdict: q } = quota;
    const separator = policy === '' ? '' : ', ';
    policy += separator + quotaPolicy(plan, counters);
    current += `${separator}"quota-${plan.periods[q.period]!.period}";r=${q.remaining};t=${q.resetSeconds}`;
    if (!q.admitted) retry = Math.max(retry, q.resetSeconds);
  }
  const headers: Record<string, string> = { 'ratelimit-policy': policy, ratelimit: current };
  if (retry > 0) headers['retry-after'] = String(retry);
  return headers;
}
