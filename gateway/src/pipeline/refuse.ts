import type { AppError } from '@acs/errors';
import { sendError } from '../respond.js';
import type { AuthRejection } from '../metrics/gateway-metrics.js';
import type { ApiExchange, Outcome, PipelineDeps } from './exchange.js';

/** Writes an error answer, with the RateLimit headers once the request was admitted. */
export function answer(ex: ApiExchange, error: AppError): Outcome {
  sendError(ex.res, error, ex.requestId, ex.limitHeaders);
  return 'answered';
}

/** Gives back a request that was counted with its read and is now refused: only requests the gateway admits count. */
export function giveBack(ex: ApiExchange, deps: PipelineDeps): void {
  if (ex.counted.length === 0) return;
  deps.limiter.giveBack(ex.counted);
  ex.counted = [];
}

/** A refusal by one of the checks (401 key, 403 scope or user): counted in the metrics, never in the limits. */
export function refuse(ex: ApiExchange, deps: PipelineDeps, reason: AuthRejection, error: AppError): Outcome {
  deps.metrics.authRejected(reason);
  giveBack(ex, deps);
  return answer(ex, error);
}
