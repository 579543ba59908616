import { redisServerAttributes, type Cache } from '@acs/cache';
import { createClientAddressResolver, createRouteMatcher, listen, type RunningServer } from '@acs/http';
import type { Logger } from '@acs/logger';
import { createMetricsRegistry } from '@acs/metrics';
import { createAuthzClient } from './auth/authz-client.js';
import { SessionSeenReporter } from './auth/session-seen.js';
import { JwksStore } from './auth/jwks-store.js';
import { createKeysClient } from './auth/keys-client.js';
import { TokenVerifier } from './auth/token-verifier.js';
import { KeyUsageRecorder } from './auth/key-usage-recorder.js';
import { RecordReader } from './auth/record-reader.js';
import type { GatewayConfig } from './config.js';
import { createGatewayHandler, type GatewayHandlerDeps } from './handler.js';
import { QuotaLimiter } from './limits/quota-limiter.js';
import { RateLimiter } from './limits/rate-limiter.js';
import { GatewayMetrics } from './metrics/gateway-metrics.js';
import { createMetricsListener } from './metrics/metrics-listener.js';
import { buildOpenApiDocument } from './openapi/build-openapi.js';
import { closeUpstreams, createUpstreams } from './proxy/upstreams.js';
import { idempotencyStoreFor } from './idempotency/idempotency-store.js';
import { leakReportEndpoint } from './leaks/leak-report-endpoint.js';
import { createPublicEndpoints, readinessChecks } from './public-endpoints.js';
import { createCachedReadiness } from './readiness.js';
import { ROUTES } from './routing/route-table.js';
import { tracingIsOn } from '@acs/tracing';
import { GatewayTracer } from './tracing/request-trace.js';

export interface Gateway {
  server: RunningServer;
  /** GET /metrics for Prometheus on METRICS_PORT; null when METRICS_PORT is off. */
  metricsServer: RunningServer | null;
  close(): Promise<void>;
}

/** Builds the pipeline and listens; the cache is passed in because the embedded mode shares it with the keys service. */
export async function startGateway(config: GatewayConfig, logger: Logger, cache: Cache): Promise<Gateway> {
  const upstreams = createUpstreams(config);
  const keys = upstreams.get('keys')!;
  const identity = upstreams.get('identity');
  const jwks = identity ? new JwksStore(identity, identity.internalSecret, logger) : null;
  const tokens = jwks
    ? new TokenVerifier(jwks, { issuer: config.JWT_ISSUER, audience: config.JWT_AUDIENCE, maxEntries: config.VERIFIED_TOKEN_CACHE_SIZE })
    : null;
  const usage = new KeyUsageRecorder(keys, keys.internalSecret, logger, config.KEY_USAGE_FLUSH_MS);
  usage.start();
  const registry = createMetricsRegistry('gateway');
  const metrics = new GatewayMetrics(registry, ROUTES);
  const readiness = createCachedReadiness(readinessChecks(upstreams, cache));
  const handler = createGatewayHandler(pipelineDeps(config, logger, cache, { upstreams, tokens, usage, metrics, jwks, readiness }));
  const server = await listen(handler, config.PORT, config.HOST);
  const stop = async (): Promise<void> => {
    await server.close();
    await usage.stop();
    await closeUpstreams(upstreams);
  };
  let metricsServer: RunningServer | null = null;
  if (config.METRICS_PORT !== null) {
    try {
      metricsServer = await listen(createMetricsListener(registry, logger, readiness), config.METRICS_PORT, config.HOST);
    } catch (err) {
      await stop(); // a busy metrics port must not leave the public one serving
      throw err;
    }
  }
  logger.info(
    { url: server.url, metrics: metricsServer ? `${metricsServer.url}/metrics` : 'off', upstreams: [...upstreams.keys()] },
    'gateway listening',
  );
  const running = metricsServer;
  return {
    server,
    metricsServer,
    close: async () => {
      await running?.close();
      await stop();
    },
  };
}

/** The pipeline's parts that only the request path uses (records, limiter, public endpoints, tracing). */
function pipelineDeps(
  config: GatewayConfig,
  logger: Logger,
  cache: Cache,
  parts: Pick<GatewayHandlerDeps, 'upstreams' | 'tokens' | 'usage' | 'metrics'> & {
    jwks: JwksStore | null;
    readiness: Parameters<typeof createPublicEndpoints>[0]['readiness'];
  },
): GatewayHandlerDeps {
  const { upstreams, tokens, usage, metrics, jwks, readiness } = parts;
  const identity = upstreams.get('identity');
  const keys = upstreams.get('keys')!;
  return {
    match: createRouteMatcher(ROUTES),
    records: new RecordReader(
      cache,
      createKeysClient(keys, keys.internalSecret),
      identity ? createAuthzClient(identity, identity.internalSecret) : null,
      logger,
      metrics,
    ),
    tokens,
    sessionsSeen: identity ? new SessionSeenReporter(identity, identity.internalSecret, logger) : null,
    usage,
    limiter: new RateLimiter(
      cache,
      { defaults: { live: config.RATE_LIMITS_LIVE, test: config.RATE_LIMITS_TEST }, replicas: config.GATEWAY_REPLICAS },
      logger,
    ),
    quota: new QuotaLimiter(cache, config.GATEWAY_REPLICAS, logger, usage),
    upstreams,
    clientAddress: createClientAddressResolver(config.TRUSTED_PROXIES),
    maxBodyBytes: config.MAX_BODY_BYTES,
    idempotency: idempotencyStoreFor(cache, config.IDEMPOTENCY_LEASE_MS),
    publicEndpoints: createPublicEndpoints({
      readiness,
      jwks,
      openApiDocument: buildOpenApiDocument(ROUTES),
      leakReports: leakReportEndpoint(keys),
    }),
    logger,
    metrics,
    tracing: tracingIsOn() ? new GatewayTracer(config.TRACE_TRUST_INCOMING, redisServerAttributes(config)) : null,
  };
}
