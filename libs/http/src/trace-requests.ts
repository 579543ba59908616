import { ROOT_CONTEXT, SpanKind, context, propagation, trace, type Span } from '@opentelemetry/api';
import type { Middleware } from 'koa';
import { ATTR, markSpanFailed, tracerFor, withServiceName } from '@acs/tracing';
import type { AppState } from './types.js';

/** The SERVER span of each request, between the two middlewares: started once the caller is known, ended once the status is final. */
const spans = new WeakMap<object, Span>();

/**
 * Outermost part: ends the span after the error middleware has turned any failure into its status,
 * so a refused or failed request shows the status the caller got.
 */
export function endRequestSpans(): Middleware<AppState> {
  return async (ctx, next) => {
    try {
      await next();
    } finally {
      const span = spans.get(ctx);
      if (span) {
        const route = (ctx as { _matchedRoute?: unknown })._matchedRoute;
        if (typeof route === 'string') {
          span.updateName(`${ctx.method} ${route}`);
          span.setAttribute(ATTR.httpRoute, route);
        }
        span.setAttribute(ATTR.httpStatus, ctx.status);
        if (ctx.status >= 500) markSpanFailed(span, String(ctx.status));
        span.end();
      }
    }
  };
}

/**
 * After the gateway's signature is verified: the SERVER span, a child of the gateway's span when the
 * signed context carries its traceparent (only a verified context is believed). Probes and /metrics
 * have no caller and make no span. Everything the request does runs in the span's context, which also
 * names this service, so database and Redis spans of shared code land under this service.
 */
export function startRequestSpans(service: string): Middleware<AppState> {
  return (ctx, next) => {
    const caller = ctx.state.caller;
    if (!caller) return next();
    const parent = caller.traceparent ? propagation.extract(ROOT_CONTEXT, caller) : ROOT_CONTEXT;
    const span = tracerFor(service).startSpan(
      ctx.method,
      {
        kind: SpanKind.SERVER,
        attributes: {
          [ATTR.httpMethod]: ctx.method,
          [ATTR.urlPath]: ctx.path,
          [ATTR.urlScheme]: ctx.protocol,
          [ATTR.requestId]: ctx.state.requestId,
        },
      },
      parent,
    );
    spans.set(ctx, span);
    return context.with(trace.setSpan(withServiceName(parent, service), span), next);
  };
}
