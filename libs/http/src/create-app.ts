import Koa from 'koa';
import type { Router } from '@koa/router';
import { methodNotAllowed, notFound } from '@acs/errors';
import type { Logger } from '@acs/logger';
import { HttpMetrics, httpMetricsMiddleware, type Registry } from '@acs/metrics';
import { requestId } from './request-id.js';
import { accessLog } from './access-log.js';
import { errorMiddleware } from './error-middleware.js';
import { requireGatewaySignature } from './internal-auth.js';
import { metricsRoutes } from './metrics-route.js';
import { probeRoutes, type ReadinessCheck } from './health.js';
import { endRequestSpans, startRequestSpans } from './trace-requests.js';
import type { AppState } from './types.js';
import { tracingIsOn } from '@acs/tracing';
import type { VerificationKeys } from '@acs/auth';

export interface HttpAppOptions {
  /** The service's name as the gateway names its upstream (keys, identity, ...): signed contexts are bound to it. */
  service: string;
  logger: Logger;
  /** This service's own internal keys (libs/config internalKeys), held by the gateway too; requests without a valid signed context are refused. */
  internalSecret: VerificationKeys;
  /** Keys another service signs its calls to this one's /internal/ routes with (device → catalog); nothing else. */
  peerSecrets?: VerificationKeys;
  routers: Router<AppState>[];
  /** The service's registry (createMetricsRegistry): served at /metrics, with every request counted by route pattern. */
  metrics: Registry;
  /** What /readyz asks before it answers 200 (each named check: 'ok' or what is wrong); /healthz always answers. */
  readiness: Record<string, ReadinessCheck>;
}

/**
 * The Koa app every service builds on: request id, request metrics, access log, one error
 * middleware, gateway signature check, the request's trace span (when tracing is on), the routers (after `/metrics`), then 404/405 in the
 * platform's error shape. Never listens: tests drive `app.callback()` and main.ts hands it to `listen()`.
 */
export function createHttpApp({
  service,
  logger,
  internalSecret,
  peerSecrets,
  routers,
  metrics,
  readiness,
}: HttpAppOptions): Koa<AppState> {
  const app = new Koa<AppState>();
  app.silent = true; // errors are logged by errorMiddleware, with the request id
  app.on('error', (err: unknown) => logger.error({ err }, 'unhandled application error'));

  app.use(requestId(logger));
  app.use(httpMetricsMiddleware(new HttpMetrics(metrics)));
  app.use(accessLog());
  // Decided when the app is built (main.ts and the launcher start tracing first): off costs nothing per request.
  const traced = tracingIsOn();
  if (traced) app.use(endRequestSpans());
  app.use(errorMiddleware());
  app.use(requireGatewaySignature(internalSecret, service, peerSecrets));
  if (traced) app.use(startRequestSpans(service));
  app.use(async (ctx, next) => {
    await next();
    if (ctx.body !== undefined && ctx.body !== null) return;
    if (ctx.status === 405) {
      throw methodNotAllowed(ctx.response.get('Allow').split(/,\s*/).filter(Boolean), `${ctx.method} is not supported on ${ctx.path}`);
    }
    if (ctx.status === 404) throw notFound(`No route for ${ctx.method} ${ctx.path}`);
  });
  for (const router of [metricsRoutes(metrics), probeRoutes(readiness), ...routers]) {
    app.use(router.routes());
    app.use(router.allowedMethods());
  }
  return app;
}
