import { createMemoryCache, createRedisCache, type Cache } from '@acs/cache';
import { serviceDatabaseUrl } from '@acs/config';
import { acquireDataDirLock } from '@acs/db';
import { createAmqpBus, createMemoryBus, type Bus } from '@acs/bus';
import type { Logger } from '@acs/logger';
import { catalogConfigSchema, startCatalogService, type CatalogService } from '@acs/catalog-service';
import { ensureSystemKey, keysConfigSchema, startKeysService, type KeysService } from '@acs/keys-service';
import { identityConfigSchema, startIdentityService, type IdentityService } from '@acs/identity-service';
import { gatewayConfigSchema, startGateway, type Gateway } from '@acs/gateway';
import { deviceConfigSchema, startDeviceService, type DeviceService } from '@acs/device-service';
import { billingConfigSchema, startBillingService, type BillingService } from '@acs/billing-service';
import type { LauncherConfig } from './config.js';
import { loadOrCreateInternalSecret } from './internal-secret.js';
import { startEmbeddedDashboard } from './dashboard.js';
import type { DashboardService } from '@acs/dashboard-service';

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
  /** The account dashboard (a client of the gateway, with its own key). */
  dashboard: DashboardService;
  dashboardUrl: string;
  stop(): Promise<void>;
}

/**
 * Starts every service, each its own HTTP server on loopback, and the gateway in front, sharing
 * one cache (in-process unless REDIS_URL is set). Used by `npm start` and the end-to-end tests.
 */
export async function startSystem(config: LauncherConfig, logger: Logger): Promise<RunningSystem> {
  const embeddedDb = !config.DATABASE_URL;
  const releaseLock = embeddedDb ? await acquireDataDirLock(config.DATA_DIR) : async () => {};
  const stack: (() => Promise<void>)[] = [releaseLock];
  const stop = async (): Promise<void> => {
    for (const step of stack.reverse()) await step().catch((err: unknown) => logger.error({ err }, 'error while stopping'));
  };
  try {
    const internalSecret = config.INTERNAL_SECRET ?? (await loadOrCreateInternalSecret(config.DATA_DIR));
    const cache = config.REDIS_URL ? createRedisCache({ url: config.REDIS_URL, keyPrefix: config.REDIS_PREFIX, logger: logger.child({ service: 'cache' }) }) : createMemoryCache();
    stack.push(() => cache.close());
    // One bus for billing (publisher) and identity (consumer): RabbitMQ, or in-process in the embedded mode.
    const bus = config.AMQP_URL
      ? createAmqpBus({ url: config.AMQP_URL, exchange: config.BUS_EXCHANGE, logger: logger.child({ service: 'bus' }) })
      : createMemoryBus({ logger: logger.child({ service: 'bus' }) });
    stack.push(() => bus.close());
    const shared = { HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: config.LOG_LEVEL, DATA_DIR: config.DATA_DIR, INTERNAL_SECRET: internalSecret };
    const dbFor = (service: string) => (config.DATABASE_URL ? { DATABASE_URL: serviceDatabaseUrl(config.DATABASE_URL, service) } : {});

    const keys = await startKeysService(
      keysConfigSchema.parse({
        ...shared, ...dbFor('keys'), KEY_PREFIX: config.KEY_PREFIX, REDIS_PREFIX: config.REDIS_PREFIX,
        SEED_API_KEY: config.SEED_API_KEY, SEED_API_SECRET: config.SEED_API_SECRET, SEED_API_SCOPES: config.SEED_API_SCOPES,
        KEYS_PER_USER: config.KEYS_PER_USER, RATE_LIMIT_CEILING: config.RATE_LIMIT_CEILING,
      }),
      logger.child({ service: 'keys' }),
      cache,
    );
    stack.push(() => keys.close());
    const identity = await startIdentityService(
      identityConfigSchema.parse({
        ...shared, ...dbFor('identity'), REDIS_PREFIX: config.REDIS_PREFIX,
        SEED_ADMIN_EMAIL: config.SEED_ADMIN_EMAIL, SEED_ADMIN_PASSWORD: config.SEED_ADMIN_PASSWORD,
        TRIAL_DURATION_SECONDS: config.TRIAL_DURATION_SECONDS, JWT_TTL_SECONDS: config.JWT_TTL_SECONDS, BCRYPT_COST: config.BCRYPT_COST,
        JWT_SIGNING_KEY: config.JWT_SIGNING_KEY, JWT_VERIFICATION_KEYS: config.JWT_VERIFICATION_KEYS,
        LOGIN_MAX_FAILURES_PER_ACCOUNT: config.LOGIN_MAX_FAILURES_PER_ACCOUNT, LOGIN_MAX_FAILURES_PER_ADDRESS: config.LOGIN_MAX_FAILURES_PER_ADDRESS,
        LOGIN_FAILURE_WINDOW_SECONDS: config.LOGIN_FAILURE_WINDOW_SECONDS, SUBSCRIPTION_EVENTS_QUEUE: config.SUBSCRIPTION_EVENTS_QUEUE,
      }),
      logger.child({ service: 'identity' }),
      cache,
      bus,
    );
    stack.push(() => identity.close());
    const catalog = await startCatalogService(catalogConfigSchema.parse({ ...shared, ...dbFor('catalog') }), logger.child({ service: 'catalog' }));
    stack.push(() => catalog.close());
    const device = await startDeviceService(
      deviceConfigSchema.parse({ ...shared, ...dbFor('device'), CATALOG_URL: catalog.server.url }),
      logger.child({ service: 'device' }),
    );
    stack.push(() => device.close());
    const billing = await startBillingService(
      billingConfigSchema.parse({
        ...shared, ...dbFor('billing'), BUS_EXCHANGE: config.BUS_EXCHANGE,
        BILLING_PERIOD_SECONDS_MONTHLY: config.BILLING_PERIOD_SECONDS_MONTHLY, BILLING_PERIOD_SECONDS_YEARLY: config.BILLING_PERIOD_SECONDS_YEARLY,
      }),
      logger.child({ service: 'billing' }),
      bus,
    );
    stack.push(() => billing.close());
    const gateway = await startGateway(
      gatewayConfigSchema.parse({ ...shared, HOST: config.HOST, PORT: String(config.PORT), METRICS_PORT: config.METRICS_PORT === null ? 'off' : String(config.METRICS_PORT), KEYS_URL: keys.server.url, IDENTITY_URL: identity.server.url, CATALOG_URL: catalog.server.url, DEVICE_URL: device.server.url, BILLING_URL: billing.server.url, KEY_USAGE_FLUSH_MS: config.KEY_USAGE_FLUSH_MS, TRUSTED_PROXIES: config.TRUSTED_PROXIES, RATE_LIMITS_LIVE: config.RATE_LIMITS_LIVE, RATE_LIMITS_TEST: config.RATE_LIMITS_TEST }),
      logger.child({ service: 'gateway' }),
      cache,
    );
    stack.push(() => gateway.close());
    const generatedSystemKey = config.SEED_API_KEY ? null : await ensureSystemKey(keys.deps);
    // After the operator's key: the first start still prints one, whatever the dashboard holds.
    const dashboard = await startEmbeddedDashboard(config, keys.deps, gateway.server.url, logger.child({ service: 'dashboard' }));
    stack.push(() => dashboard.close());
    return { gatewayUrl: gateway.server.url, keys, identity, catalog, device, billing, gateway, cache, bus, generatedSystemKey, dashboard, dashboardUrl: dashboard.server.url, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
