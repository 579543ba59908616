import type { Middleware } from 'koa';
import { AppError, badRequest, errorBody, errorOf, invalidStoredValueError, isInvalidStoredValue, notFound, toAppError } from '@acs/errors';
import type { AppState } from './types.js';

/** Koa's own errors (from ctx.throw, http-errors) carry a status; map the ones a client can cause. */
function fromHttpError(err: unknown): AppError | null {
  if (typeof err !== 'object' || err === null || !('status' in err) || typeof err.status !== 'number') return null;
  const status = err.status;
  if (status === 404) return notFound('No such resource');
  if (status === 405) return errorOf('method_not_allowed', 'This resource does not support that method');
  if (status === 413) return errorOf('payload_too_large', 'The request body is too large');
  if (status === 400) return badRequest('The request could not be understood');
  return null;
}

/**
 * First in the chain: every failure becomes the platform's error body. Unexpected errors are
 * logged with their stack and answered as a bare 500; the client never sees internals.
 */
export function errorMiddleware(): Middleware<AppState> {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      let appError: AppError;
      if (err instanceof AppError) appError = err;
      else if (isInvalidStoredValue(err)) {
        // The client's value, refused by the database: 400, but logged, since validation should have caught it.
        ctx.state.log.warn({ err }, 'the database refused a value from the request');
        appError = invalidStoredValueError(err);
      } else appError = fromHttpError(err) ?? toAppError(err);
      if (appError.status >= 500) ctx.state.log.error({ err }, 'request failed');
      ctx.status = appError.status;
      if (appError.headers) ctx.set(appError.headers);
      if (appError.kind === 'method_not_allowed' && err && typeof err === 'object' && 'headers' in err) {
        const allow = (err as { headers?: Record<string, string> }).headers?.Allow;
        if (allow) ctx.set('Allow', allow);
      }
      ctx.body = errorBody(appError, ctx.state.requestId);
    }
  };
}
