import { UNMATCHED_ROUTE, type HttpMetrics } from './http-metrics.js';

/**
 * What the middleware reads from a Koa context, typed structurally so this package does not
 * depend on Koa. `_matchedRoute` is set by @koa/router to the pattern of the route that ran.
 */
interface RoutedContext {
  method: string;
  status: number;
  _matchedRoute?: string | RegExp | undefined;
}

/** Counts and times every request by its route pattern; put it before the error middleware so the final status is seen. */
export function httpMetricsMiddleware(metrics: HttpMetrics) {
  return async function countRequest(ctx: RoutedContext, next: () => Promise<unknown>): Promise<void> {
    const started = performance.now();
    let failed = false;
    try {
      await next();
    } catch (err) {
      failed = true; // Koa answers an escaped error with 500
      throw err;
    } finally {
      const route = typeof ctx._matchedRoute === 'string' ? ctx._matchedRoute : UNMATCHED_ROUTE;
      metrics.recorder(ctx.method, route).observe(failed ? 500 : ctx.status, (performance.now() - started) / 1000);
    }
  };
}
