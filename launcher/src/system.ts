import { createMemoryCache, createSharedCache, type Cache } from '@acs/cache';
import { redisTarget, serviceDatabaseUrl } from '@acs/config';
import { acquireDataDirLock } from '@acs/db';
import { createAmqpBus, createMemoryBus, type Bus } from '@acs/bus';
import { startWithCloseStack } from '@acs/http';
import { runAsService } from '@acs/tracing';
import { serviceLogger, type Logger } from '@acs/logger';
import { startCatalogService, type CatalogService } from '@acs/catalog-service';
import { ensureSystemKey, startKeysService, type KeysService } from '@acs/keys-service';
import { startIdentityService, type IdentityService } from '@acs/identity-service';
import { startGateway, type Gateway } from '@acs/gateway';
import { startDeviceService, type DeviceService } from '@acs/device-service';
import { startBillingService, type BillingService } from '@acs/billing-service';
import type { DashboardService } from '@acs/dashboard-service';
import type { LauncherConfig } from './config.js';
import { embeddedConfig } from './embedded-configs.js';
import { loadOrCreateInternalSecret } from './internal-secret.js';
import { startEmbeddedDashboard } from './dashboard.js';
import { serveCliSocket } from './cli-socket.js';

export interface RunningSystem {
  gatewayUrl: string;
  keys: KeysService;
  identity: IdentityService;
  catalog: CatalogService;
  device: DeviceService;
  billing: BillingService;
  gateway: Gateway;
  cache: Cache;
  bus: Bus;
  /** Credentials made at this start when no system key existed and no seed was given; shown once. */
  generatedSystemKey: { key: string; secret: string } | null;
  /** SEED_API_KEY and its scopes, as the keys service applied them; null without a seed. */
  seedKey: { key: string; scopes: string } | null;
  /** The account dashboard (a client of the gateway, with its own key). */
  dashboard: DashboardService;
  dashboardUrl: string;
  stop(): Promise<void>;
}

type ServiceName = 'keys' | 'identity' | 'catalog' | 'device' | 'billing';

/**
 * Starts every service, each its own HTTP server on loopback, and the gateway in front, sharing
 * one cache (in-process unless REDIS_URL or REDIS_CLUSTER_NODES is set). Used by `npm start` and the end-to-end tests.
 * A failed start stops what had started, newest first.
 */
export function startSystem(config: LauncherConfig, logger: Logger): Promise<RunningSystem> {
  return startWithCloseStack(logger, async (stack) => {
    if (!config.DATABASE_URL) stack.defer('the data folder lock', await acquireDataDirLock(config.DATA_DIR));
    const internalSecret = config.INTERNAL_SECRET ?? (await loadOrCreateInternalSecret(config.DATA_DIR));
    const redis = redisTarget('npm start', config);
    const cache = redis
      ? createSharedCache(redis, { keyPrefix: config.REDIS_PREFIX, logger: serviceLogger(logger, 'cache') })
      : createMemoryCache();
    stack.defer('the cache', () => cache.close());
    // One bus for billing (publisher) and identity (consumer): RabbitMQ, or in-process in the embedded mode.
    const bus = config.AMQP_URL
      ? createAmqpBus({ url: config.AMQP_URL, exchange: config.BUS_EXCHANGE, logger: serviceLogger(logger, 'bus') })
      : createMemoryBus({ exchange: config.BUS_EXCHANGE, logger: serviceLogger(logger, 'bus') });
    stack.defer('the bus', () => bus.close());

    // What the launcher decides for a service behind the gateway; the rest of its variables come from the environment.
    const behindGateway = (service: ServiceName) => ({
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: config.LOG_LEVEL,
      DATA_DIR: config.DATA_DIR,
      DATABASE_URL: config.DATABASE_URL ? serviceDatabaseUrl(config.DATABASE_URL, service) : undefined,
      INTERNAL_SECRET: internalSecret,
    });
    const keysConfig = embeddedConfig('keys', config.env, behindGateway('keys'));
    const keys = await runAsService('keys', () => startKeysService(keysConfig, serviceLogger(logger, 'keys'), cache));
    stack.defer('the keys service', () => keys.close());
    const identity = await runAsService('identity', () =>
      startIdentityService(
        embeddedConfig('identity', config.env, behindGateway('identity')),
        serviceLogger(logger, 'identity'),
        cache,
        bus,
      ),
    );
    stack.defer('the identity service', () => identity.close());
    const catalog = await runAsService('catalog', () =>
      startCatalogService(embeddedConfig('catalog', config.env, behindGateway('catalog')), serviceLogger(logger, 'catalog')),
    );
    stack.defer('the catalog service', () => catalog.close());
    const device = await runAsService('device', () =>
      startDeviceService(
        embeddedConfig('device', config.env, { ...behindGateway('device'), CATALOG_URL: catalog.server.url }),
        serviceLogger(logger, 'device'),
      ),
    );
    stack.defer('the device service', () => device.close());
    const billing = await runAsService('billing', () =>
      startBillingService(embeddedConfig('billing', config.env, behindGateway('billing')), serviceLogger(logger, 'billing'), bus),
    );
    stack.defer('the billing service', () => billing.close());
    const gateway = await runAsService('gateway', () =>
      startGateway(
        embeddedConfig('gateway', config.env, {
          HOST: config.HOST,
          PORT: String(config.PORT),
          METRICS_PORT: config.METRICS_PORT === null ? 'off' : String(config.METRICS_PORT),
          LOG_LEVEL: config.LOG_LEVEL,
          INTERNAL_SECRET: internalSecret,
          KEYS_URL: keys.server.url,
          IDENTITY_URL: identity.server.url,
          CATALOG_URL: catalog.server.url,
          DEVICE_URL: device.server.url,
          BILLING_URL: billing.server.url,
        }),
        serviceLogger(logger, 'gateway'),
        cache,
      ),
    );
    stack.defer('the gateway', () => gateway.close());
    const generatedSystemKey = keysConfig.SEED_API_KEY ? null : await ensureSystemKey(keys.deps);
    // After the operator's key: the first start still prints one, whatever the dashboard holds.
    const dashboard = await runAsService('dashboard', () =>
      startEmbeddedDashboard(config, keys.deps, gateway.server.url, serviceLogger(logger, 'dashboard')),
    );
    stack.defer('the dashboard', () => dashboard.close());
    if (!config.DATABASE_URL) stack.defer('the CLI socket', await serveCliSocket(config.DATA_DIR, cache, logger));
    return {
      gatewayUrl: gateway.server.url,
      keys,
      identity,
      catalog,
      device,
      billing,
      gateway,
      cache,
      bus,
      generatedSystemKey,
      seedKey: keysConfig.SEED_API_KEY ? { key: keysConfig.SEED_API_KEY, scopes: keysConfig.SEED_API_SCOPES } : null,
      dashboard,
      dashboardUrl: dashboard.server.url,
      stop: stack.close,
    };
  });
}
