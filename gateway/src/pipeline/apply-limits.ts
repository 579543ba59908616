import { errorOf } from '@acs/errors';
import type { LimitPlan } from '../limits/rate-limiter.js';
import { rateLimitHeaders } from '../limits/rate-limit-headers.js';
import { quotaPlanOf, type QuotaPlan } from '../limits/quota.js';
import { ownerRecordOf, quotaOwnerOf } from './count-with-read.js';
import type { ApiExchange, PipelineDeps, Step } from './exchange.js';
import { answer, giveBack } from './refuse.js';

/** The 429 of a spent plan quota: code quota_exceeded, the plan and the reset (UTC) in the hint. */
function quotaRefusal(ex: ApiExchange, headers: Record<string, string>): Step {
  const { plan, counters, verdict } = ex.quota!;
  const { period, limit } = plan.periods[verdict.period]!;
  const resetAt = new Date(counters.ends[verdict.period]!).toISOString().replace('.000Z', 'Z');
  return answer(
    ex,
    errorOf('too_many_requests', `This account's ${period}ly request quota is spent; it resets at ${resetAt}`, {
      headers,
      code: 'quota_exceeded',
      hint: `The plan "${plan.plan}" allows ${limit} requests per ${period} (UTC) for all of this account's keys; the quota resets at ${resetAt} (UTC), in ${verdict.resetSeconds} s (the Retry-After header).`,
    }),
  );
}

/** Admits (the headers on the answer-to-be) or refuses with 429, giving back what the request counted. */
function admitOrRefuse(ex: ApiExchange, deps: PipelineDeps, plan: LimitPlan | null): Step {
  const { limit, quota } = ex;
  if ((plan === null || limit === null) && quota === null) return undefined;
  const windows = plan === null ? null : plan.windows;
  if ((limit?.admitted ?? true) && (quota?.verdict.admitted ?? true)) {
    // Written with the answer's own headers (forward.ts, refuse.ts), never res.setHeader: see sendError.
    ex.limitHeaders = rateLimitHeaders(windows, limit, quota);
    if (quota !== null) deps.quota.admitted(quota);
    return undefined;
  }
  giveBack(ex, deps);
  // The side that had room counted this request too, and has it back now.
  const headers = rateLimitHeaders(
    windows,
    limit?.admitted ? { ...limit, remaining: limit.remaining + 1 } : limit,
    quota?.verdict.admitted ? { ...quota, verdict: { ...quota.verdict, remaining: quota.verdict.remaining + 1 } } : quota,
  );
  deps.metrics.rateLimited(ex.route!);
  if (quota !== null && !quota.verdict.admitted) return quotaRefusal(ex, headers);
  const seconds = Math.max(1, limit!.retryAfterSeconds);
  return answer(
    ex,
    errorOf('too_many_requests', `This API key's rate limit is reached; retry in ${seconds} s`, {
      headers,
      code: 'rate_limited',
      hint: `Retry after ${seconds} s (the Retry-After header); the RateLimit-Policy header lists this key's limits.`,
    }),
  );
}

/** What was not counted with the read: the limit (one more round trip) and the quota (its owner's record first if need be). */
async function countThenDecide(ex: ApiExchange, deps: PipelineDeps, plan: LimitPlan | null, ownerId: number | undefined): Promise<Step> {
  let quota: QuotaPlan | null = null;
  if (!quotaSettled(ex, ownerId)) {
    const read = ownerRecordOf(ex, ownerId!);
    const owner = read === undefined ? await deps.records.ownerRecord(ownerId!, ex.requestId) : read;
    quota = owner && quotaPlanOf(owner);
  }
  const [limited, quoted] = await Promise.all([
    plan !== null && ex.limit === null ? deps.limiter.count(ex.record!, plan, ex.cacheDown) : null,
    quota !== null ? deps.quota.count(quota, ex.cacheDown) : null,
  ]);
  if (limited) {
    ex.limit = limited.verdict;
    if (limited.counted) ex.counted.push(limited.counted);
  }
  if (quoted) {
    ex.quota = quoted.decision;
    ex.counted.push(quoted.counted);
  }
  return admitOrRefuse(ex, deps, plan);
}

/**
 * Step 5: the key's rate limits and its owner's plan quota, only now that every other check passed. Usually
 * decided already with the read (the counters moved in the same round trip); otherwise counted here (a record
 * new to this replica or changed, a Redis outage, the embedded cache). Every answer from here on carries the
 * RateLimit headers; a refusal is 429 before any service is called, and counts in neither.
 */
export function applyLimits(ex: ApiExchange, deps: PipelineDeps): Step | Promise<Step> {
  const record = ex.record!;
  const plan = deps.limiter.planFor(ex.apiKey, record, ex.environment);
  const ownerId = quotaOwnerOf(record);
  if ((plan === null || ex.limit !== null) && quotaSettled(ex, ownerId)) return admitOrRefuse(ex, deps, plan);
  return countThenDecide(ex, deps, plan, ownerId);
}

/** Nothing left to count for the quota: no owner, counted with the read, or an owner (read) without a quota. */
function quotaSettled(ex: ApiExchange, ownerId: number | undefined): boolean {
  if (ownerId === undefined || ex.quota !== null) return true;
  const owner = ownerRecordOf(ex, ownerId);
  return owner === null || (owner !== undefined && quotaPlanOf(owner) === null);
}
