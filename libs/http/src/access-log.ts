import type { Middleware } from 'koa';
import type { AppState } from './types.js';

/** One line per request with status and duration; the path only, never the query (it may hold e-mails). */
export function accessLog(): Middleware<AppState> {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      ctx.state.log.info({ method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(ms * 100) / 100 }, 'request');
    }
  };
}
