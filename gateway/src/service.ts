import type { Cache } from '@acs/cache';
import { listen, type RunningServer } from '@acs/http';
import type { Logger } from '@acs/logger';
import { createCallerAuthenticator } from './auth/api-key-auth.js';
import { createAuthzClient } from './auth/authz-client.js';
import { JwksStore } from './auth/jwks-store.js';
import { createKeysClient } from './auth/keys-client.js';
import { TokenVerifier } from './auth/token-verifier.js';
import { KeyUsageRecorder } from './auth/key-usage-recorder.js';
import type { GatewayConfig } from './config.js';
import { createGatewayHandler } from './handler.js';
import { buildOpenApiDocument } from './openapi/build-openapi.js';
import { closeUpstreams, createUpstreams } from './proxy/upstreams.js';
import { createPublicEndpoints } from './public-endpoints.js';
import { createRouteMatcher } from './routing/route-matcher.js';
import { ROUTES } from './routing/route-table.js';

export interface Gateway {
  server: RunningServer;
  close(): Promise<void>;
}

/** Builds the pipeline and listens; the cache is passed in because the embedded mode shares it with the keys service. */
export async function startGateway(config: GatewayConfig, logger: Logger, cache: Cache): Promise<Gateway> {
  const upstreams = createUpstreams(config);
  const keys = upstreams.get('keys')!;
  const identity = upstreams.get('identity');
  const jwks = identity ? new JwksStore(identity, config.INTERNAL_SECRET, logger) : null;
  const tokens = jwks ? new TokenVerifier(jwks, { issuer: config.JWT_ISSUER, audience: config.JWT_AUDIENCE, maxEntries: config.VERIFIED_TOKEN_CACHE_SIZE }) : null;
  const usage = new KeyUsageRecorder(keys, config.INTERNAL_SECRET, logger, config.KEY_USAGE_FLUSH_MS);
  usage.start();
  const handler = createGatewayHandler({
    match: createRouteMatcher(ROUTES),
    authenticate: createCallerAuthenticator(
      cache,
      createKeysClient(keys, config.INTERNAL_SECRET),
      identity ? createAuthzClient(identity, config.INTERNAL_SECRET) : null,
      logger,
    ),
    tokens,
    usage,
    upstreams,
    internalSecret: config.INTERNAL_SECRET,
    maxBodyBytes: config.MAX_BODY_BYTES,
    publicEndpoints: createPublicEndpoints({ upstreams, cache, jwks, openApiDocument: buildOpenApiDocument(ROUTES) }),
    logger,
  });
  const server = await listen(handler, config.PORT, config.HOST);
  logger.info({ url: server.url, upstreams: [...upstreams.keys()] }, 'gateway listening');
  return {
    server,
    close: async () => {
      await server.close();
      await usage.stop();
      await closeUpstreams(upstreams);
    },
  };
}
