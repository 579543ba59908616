import { Router } from '@koa/router';
import { METRICS_PATH, metricsExposition, type Registry } from '@acs/metrics';
import type { AppState } from './types.js';

/**
 * `GET /metrics` for Prometheus. Unsigned like the probes (PROBE_PATHS): services are reachable
 * only on the cluster network, and the gateway never routes this path (docs/architecture.md, decision 8).
 */
export function metricsRoutes(registry: Registry): Router<AppState> {
  const router = new Router<AppState>();
  router.get(METRICS_PATH, async (ctx) => {
    const { contentType, body } = await metricsExposition(registry);
    ctx.set('Content-Type', contentType);
    ctx.body = body;
  });
  return router;
}
