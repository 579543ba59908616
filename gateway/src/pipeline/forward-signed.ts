import { SYSTEM_SCOPE, signContext } from '@acs/auth';
import { payloadTooLarge } from '@acs/errors';
import { forward } from '../proxy/forward.js';
import { notDeployed } from '../proxy/upstream-errors.js';
import type { ApiExchange, Outcome, PipelineDeps } from './exchange.js';
import { finish } from './finish.js';
import { answer } from './refuse.js';

const finishForwarded = (ex: ApiExchange, deps: PipelineDeps, status: number): void => finish(ex, deps.usage, status);

/** Step 6: the body's declared size, the upstream deployed, then the signed context and the forward. */
export function forwardSigned(ex: ApiExchange, deps: PipelineDeps): Outcome {
  const { req, requestId, method, url } = ex;
  const record = ex.record!;
  const route = ex.route!;
  const context = ex.context!;
  if (Number(req.headers['content-length'] ?? 0) > deps.maxBodyBytes) return answer(ex, payloadTooLarge(deps.maxBodyBytes));
  const upstream = deps.upstreams.get(route.upstream);
  if (!upstream) {
    deps.metrics.upstreamFailed(route.upstream, 503);
    // A 503 is never kept: the Idempotency-Key is free for the retry.
    ex.idempotency?.abandon();
    return answer(ex, notDeployed(route.upstream));
  }
  if (record.scopes.includes(SYSTEM_SCOPE)) {
    deps.logger.info(
      { audit: 'system_key.request', keyId: record.id, userId: context.userId, requestId, method, path: ex.path },
      'request with a system:full-access key',
    );
  }
  if (ex.trace) Object.assign(context, ex.trace.forwarding(upstream.name, upstream.origin, method, route.path));
  const signed = signContext(upstream.internalSecret, route.upstream, method, url, context);
  forward(
    req,
    ex.res,
    upstream,
    url,
    { 'x-acs-context': signed.context, 'x-acs-signature': signed.signature },
    {
      requestId,
      logger: deps.logger,
      metrics: deps.metrics,
      maxBodyBytes: deps.maxBodyBytes,
      exchange: ex,
      deps,
      finish: finishForwarded,
      body: ex.idempotency?.body,
      tap: ex.idempotency,
      answerHeaders: ex.limitHeaders,
    },
  );
  return 'forwarded';
}
