import type { RateLimitWindow } from '@acs/contracts';
import { errorOf } from '@acs/errors';
import type { LimitVerdict } from '../limits/sliding-window.js';
import { rateLimitHeaders } from '../limits/rate-limit-headers.js';
import type { ApiExchange, PipelineDeps, Step } from './exchange.js';
import { answer } from './refuse.js';

function admitOrRefuse(ex: ApiExchange, deps: PipelineDeps, windows: readonly RateLimitWindow[], verdict: LimitVerdict): Step {
  const headers = rateLimitHeaders(windows, verdict);
  if (verdict.admitted) {
    for (const name in headers) ex.res.setHeader(name, headers[name]!);
    return undefined;
  }
  deps.metrics.rateLimited(ex.route!);
  const seconds = Math.max(1, verdict.retryAfterSeconds);
  return answer(
    ex,
    errorOf('too_many_requests', `This API key's rate limit is reached; retry in ${seconds} s`, {
      headers,
      code: 'rate_limited',
      hint: `Retry after ${seconds} s (the Retry-After header); the RateLimit-Policy header lists this key's limits.`,
    }),
  );
}

/**
 * Step 5: the key's rate limits, only now that every other check passed. Usually decided already with the
 * read of the key (its counters moved in the same round trip); otherwise by the limiter (a record new to this replica or
 * changed, a Redis outage, the embedded cache). Every answer from here on carries the RateLimit headers; a
 * refusal is 429 before any service is called.
 */
export function applyLimits(ex: ApiExchange, deps: PipelineDeps): Step | Promise<Step> {
  const record = ex.record!;
  const plan = deps.limiter.planFor(ex.apiKey, record, ex.environment);
  if (plan === null) return undefined;
  if (ex.limit !== null) return admitOrRefuse(ex, deps, plan.windows, ex.limit);
  return deps.limiter.count(record, plan, ex.cacheDown).then(({ verdict, counted }) => {
    if (verdict.admitted) ex.counted = counted;
    return admitOrRefuse(ex, deps, plan.windows, verdict);
  });
}
