import type { Middleware } from 'koa';
import { errorOf } from '@acs/errors';
import { CONTEXT_HEADER, SIGNATURE_HEADER, verifyContext } from '@acs/auth';
import { METRICS_PATH } from '@acs/metrics';
import type { AppState } from './types.js';

/** Probes and the Prometheus scrape answer anyone on the cluster network; everything else must come through the gateway. */
const PROBE_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz', METRICS_PATH]);

/** `service`: this service's name, as the gateway names its upstream: a context signed for another service is refused. */
export function requireGatewaySignature(internalSecret: string, service: string): Middleware<AppState> {
  return async (ctx, next) => {
    if (PROBE_PATHS.has(ctx.path)) return next();
    const caller = verifyContext(
      internalSecret,
      service,
      ctx.method,
      ctx.originalUrl,
      ctx.get(CONTEXT_HEADER) || undefined,
      ctx.get(SIGNATURE_HEADER) || undefined,
    );
    if (!caller) {
      throw errorOf('unauthorized', 'This service only accepts requests signed by the gateway', { code: 'gateway_signature_required' });
    }
    ctx.state.caller = caller;
    return next();
  };
}
