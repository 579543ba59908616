import { createMemoryBus } from '@acs/bus';
import { createRedisCache, type Cache } from '@acs/cache';
import { createLogger } from '@acs/logger';
import { createTestDatabase, deleteRedisKeys, testServerUrl, uniqueName } from '@acs/testing';
import { createApiKey, keysConfigSchema, startKeysService, type KeysService } from '@acs/keys-service';
import { gatewayConfigSchema, startGateway, type Gateway } from '@acs/gateway';

export const INTERNAL_SECRET = 'gateway-tests-internal-secret-0123456789';

export interface GatewayHarness {
  url: string;
  keys: KeysService;
  gateway: Gateway;
  cache: Cache;
  redisPrefix: string;
  createKey(scopes: string[]): Promise<{ id: string; key: string; secret: string }>;
  call(method: string, path: string, auth: { key: string; secret: string } | null, init?: RequestInit): Promise<Response>;
  /** Another replica with its own Redis connection, or `cache` (owned by the caller); `env` overrides this harness's variables. */
  startAnotherGateway(options?: { cache?: Cache; env?: Record<string, string> }): Promise<Gateway>;
  close(): Promise<void>;
}

/** Real keys service on a fresh database, real Redis under a unique prefix, a real gateway. */
export async function startGatewayHarness(
  upstreamUrls: Record<string, string> = {},
  gatewayEnv: Record<string, string> = {},
): Promise<GatewayHarness> {
  const logger = createLogger({ name: 'gateway-test', level: 'silent' });
  const database = await createTestDatabase('gw');
  const redisPrefix = `${uniqueName('gwtest')}:`;
  const cache = createRedisCache({ url: testServerUrl('REDIS_URL'), keyPrefix: redisPrefix });
  const keys = await startKeysService(
    keysConfigSchema.parse({ PORT: '0', HOST: '127.0.0.1', DATABASE_URL: database.url, INTERNAL_SECRET }),
    logger,
    cache,
    createMemoryBus(),
  );
  // METRICS_PORT 0: a free port, so gateways of parallel test files never compete for 9464.
  const gatewayVariables = {
    PORT: '0',
    HOST: '127.0.0.1',
    METRICS_PORT: '0',
    INTERNAL_SECRET,
    KEYS_URL: keys.server.url,
    ...upstreamUrls,
    ...gatewayEnv,
  };
  const gateway = await startGateway(gatewayConfigSchema.parse(gatewayVariables), logger, cache);
  const extraGateways: Gateway[] = [];
  return {
    url: gateway.server.url,
    keys,
    gateway,
    cache,
    redisPrefix,
    async createKey(scopes) {
      const { apiKey, secret } = await createApiKey(keys.deps, { name: 'test', scopes, ownerUserId: null, environment: 'test' });
      return { id: apiKey.id, key: apiKey.key, secret };
    },
    call(method, path, auth, init = {}) {
      const headers: Record<string, string> = { ...(init.headers as Record<string, string> | undefined) };
      if (auth) {
        headers['x-api-key'] = auth.key;
        headers['x-api-secret'] = auth.secret;
      }
      return fetch(gateway.server.url + path, { ...init, method, headers });
    },
    async startAnotherGateway(options = {}) {
      // A second replica with its own Redis connection, as in a scaled deployment.
      const otherCache = options.cache ?? createRedisCache({ url: testServerUrl('REDIS_URL'), keyPrefix: redisPrefix });
      const other = await startGateway(gatewayConfigSchema.parse({ ...gatewayVariables, ...options.env }), logger, otherCache);
      extraGateways.push({
        ...other,
        close: async () => {
          await other.close();
          if (!options.cache) await otherCache.close();
        },
      });
      return other;
    },
    async close() {
      for (const other of extraGateways) await other.close();
      await gateway.close();
      await keys.close();
      await cache.close();
      await deleteRedisKeys(redisPrefix);
      await database.drop();
    },
  };
}

/** The statuses of concurrent answers, in order, bodies read (the limit and quota tests count them). */
export async function statuses(responses: Promise<Response>[]): Promise<number[]> {
  return Promise.all(
    responses.map(async (pending) => {
      const res = await pending;
      await res.arrayBuffer();
      return res.status;
    }),
  );
}

export const count = (list: number[], status: number): number => list.filter((s) => s === status).length;
