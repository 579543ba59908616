import type { Cache } from '@acs/cache';
import { listen, type RunningServer } from '@acs/http';
import type { Logger } from '@acs/logger';
import { createKeyAuthenticator } from './auth/api-key-auth.js';
import { createKeysClient } from './auth/keys-client.js';
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
  const handler = createGatewayHandler({
    match: createRouteMatcher(ROUTES),
    authenticate: createKeyAuthenticator(cache, createKeysClient(keys, config.INTERNAL_SECRET), logger),
    upstreams,
    internalSecret: config.INTERNAL_SECRET,
    maxBodyBytes: config.MAX_BODY_BYTES,
    publicEndpoints: createPublicEndpoints({ upstreams, cache, openApiDocument: buildOpenApiDocument(ROUTES) }),
    logger,
  });
  const server = await listen(handler, config.PORT, config.HOST);
  logger.info({ url: server.url, upstreams: [...upstreams.keys()] }, 'gateway listening');
  return {
    server,
    close: async () => {
      await server.close();
      await closeUpstreams(upstreams);
    },
  };
}
