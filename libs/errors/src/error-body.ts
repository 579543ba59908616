import { AppError, type ErrorDetail } from './app-error.js';
import { errorOf } from './factories.js';
import { isDependencyUnavailable } from './dependency-unavailable.js';

/** The one error shape of the whole platform (docs/architecture.md, decision 5). */
export interface ErrorBody {
  error: string;
  message: string;
  /** Stable machine-readable code (ours; the spec fixes only `error` and `message`). */
  code: string;
  /** What a person can do about it, when there is something to say. */
  hint?: string;
  requestId?: string;
  details?: ErrorDetail[];
}

export function errorBody(err: AppError, requestId?: string): ErrorBody {
  const body: ErrorBody = { error: err.title, message: err.message, code: err.code };
  if (err.hint) body.hint = err.hint;
  if (requestId) body.requestId = requestId;
  if (err.details) body.details = err.details;
  return body;
}

/**
 * Retry-After (seconds) of a 503 for a dependency that is away, a store or a service: a restart or a failover
 * is seconds away. One value, so every such 503 tells clients the same.
 */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = '5';

/**
 * Anything that is not an AppError is a bug, except an unreachable dependency (503: try again).
 * Either way the client learns only that, never the cause.
 */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (isDependencyUnavailable(err)) {
    return errorOf('unavailable', 'A store this request needs is unavailable; try again shortly', {
      cause: err,
      headers: { 'retry-after': UNAVAILABLE_RETRY_AFTER_SECONDS },
    });
  }
  return errorOf('internal', 'The server could not complete the request', { cause: err });
}
