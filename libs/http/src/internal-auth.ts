import type { Middleware } from 'koa';
import { errorOf } from '@acs/errors';
import { CONTEXT_HEADER, SIGNATURE_HEADER, verifyContext, type VerificationKeys } from '@acs/auth';
import { METRICS_PATH } from '@acs/metrics';
import type { AppState } from './types.js';

/** Probes and the Prometheus scrape answer anyone on the cluster network; everything else must come through the gateway. */
const PROBE_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz', METRICS_PATH]);

/** Routes one service offers another (device asks the catalog which entries exist), not the public. */
const INTERNAL_PREFIX = '/internal/';

/**
 * `service`: this service's name, as the gateway names its upstream: a context signed for another service is refused.
 * `keys`: this service's own keys (libs/auth, VerificationKeys). `peerKeys`: keys another service signs its calls
 * to this one's /internal/ routes with; they open nothing else, so that service cannot act as the gateway here.
 */
export function requireGatewaySignature(keys: VerificationKeys, service: string, peerKeys: VerificationKeys = []): Middleware<AppState> {
  return async (ctx, next) => {
    if (PROBE_PATHS.has(ctx.path)) return next();
    const encoded = ctx.get(CONTEXT_HEADER) || undefined;
    const signature = ctx.get(SIGNATURE_HEADER) || undefined;
    const caller =
      verifyContext(keys, service, ctx.method, ctx.originalUrl, encoded, signature) ??
      (ctx.path.startsWith(INTERNAL_PREFIX) ? verifyContext(peerKeys, service, ctx.method, ctx.originalUrl, encoded, signature) : null);
    if (!caller) {
      throw errorOf('unauthorized', 'This service only accepts requests signed by the gateway', { code: 'gateway_signature_required' });
    }
    ctx.state.caller = caller;
    return next();
  };
}
