import { createMemoryCache, createSharedCache, type Cache } from '@acs/cache';
import { redisTarget, serviceDatabaseUrl } from '@acs/config';
import { acquireDataDirLock, makeDataDirPrivate, openEmbeddedDatabase } from '@acs/db';
import { createAmqpBus, createMemoryBus, type Bus } from '@acs/bus';
import { startWithCloseStack, type CloseStack } from '@acs/http';
import { runAsService } from '@acs/tracing';
import { serviceLogger, type Logger } from '@acs/logger';
import { startCatalogService, type CatalogService } from '@acs/catalog-service';
import { ensureSystemKey, startKeysService, type KeysService } from '@acs/keys-service';
import { startIdentityService, type IdentityService } from '@acs/identity-service';
import { startGateway, type Gateway } from '@acs/gateway';
import { startDeviceService, type DeviceService } from '@acs/device-service';
import { startBillingService, type BillingService } from '@acs/billing-service';
import { startWebhooksService, type WebhooksService } from '@acs/webhooks-service';
import type { DashboardService } from '@acs/dashboard-service';
import type { LauncherConfig } from './config.js';
import { embeddedConfig, type EmbeddedConfig, type LauncherSettings } from './embedded-configs.js';
import { deriveInternalKeys, loadOrCreateInternalKeys, webhookKeySettings, type InternalKeys } from './internal-secret.js';
import { startEmbeddedDashboard } from './dashboard.js';
import { serveCliSocket } from './cli-socket.js';

export interface RunningSystem {
  gatewayUrl: string;
  keys: KeysService;
  identity: IdentityService;
  catalog: CatalogService;
  device: DeviceService;
  billing: BillingService;
  webhooks: WebhooksService;
  gateway: Gateway;
  cache: Cache;
  bus: Bus;
  /** Credentials made at this start when no system key existed and no seed was given; shown once. */
  generatedSystemKey: { key: string; secret: string } | null;
  /** SEED_API_KEY and its scopes, as the keys service applied them; null without a seed. */
  seedKey: { key: string; scopes: string } | null;
  /** The internal keys the gateway signs with, one per service (a second gateway of the same system needs them). */
  internalKeys: InternalKeys;
  /** The account dashboard (a client of the gateway, with its own key). */
  dashboard: DashboardService;
  dashboardUrl: string;
  stop(): Promise<void>;
}

type ServiceName = 'keys' | 'identity' | 'catalog' | 'device' | 'billing' | 'webhooks';

/** Where `npm start` says what it is doing, one line per phase, so nobody stares at silence. */
export type StartProgress = (line: string) => void;

const seconds = (since: number): string => `${((performance.now() - since) / 1000).toFixed(1)} s`;

/** Runs one phase of the start as `service` (tracing's name) and reports it done, with its time. */
async function phase<T extends { server: { url: string }; close(): Promise<void> }>(
  progress: StartProgress,
  service: string,
  start: () => Promise<T>,
): Promise<T> {
  const began = performance.now();
  const started = await runAsService(service, start);
  try {
    progress(`${service}: listening on ${started.server.url} (${seconds(began)})`);
  } catch (err) {
    await started.close(); // not on the close stack yet
    throw err;
  }
  return started;
}

/** What each step of the start is given: the launcher's config and logger, the close stack, the progress line. */
interface Launch {
  config: LauncherConfig;
  logger: Logger;
  stack: CloseStack;
  progress: StartProgress;
}

/** What the services share: their internal keys, the cache and the bus. */
interface Shared {
  internalKeys: InternalKeys;
  cache: Cache;
  bus: Bus;
}

type Backends = Pick<RunningSystem, 'keys' | 'identity' | 'catalog' | 'device' | 'billing' | 'webhooks'>;

/** The data folder made private and, without DATABASE_URL, the embedded database opened (and the folder locked) ahead of the services. */
async function openStorage({ config, logger, stack, progress }: Launch): Promise<void> {
  await makeDataDirPrivate(config.DATA_DIR, logger);
  if (config.DATABASE_URL) {
    progress('database: PostgreSQL at DATABASE_URL (each service connects to its own database)');
    return;
  }
  stack.defer('the data folder lock', await acquireDataDirLock(config.DATA_DIR));
  const began = performance.now();
  progress(`database: opening the embedded PostgreSQL in ${config.DATA_DIR} (the first start creates it)`);
  const database = await openEmbeddedDatabase(config.DATA_DIR, serviceLogger(logger, 'database'));
  stack.defer('the embedded database', () => database.close());
  progress(`database: ready (${seconds(began)})`);
}

async function openShared({ config, logger, stack }: Launch): Promise<Shared> {
  // One key per service, which only the gateway also holds (docs/security.md).
  const internalKeys = config.INTERNAL_SECRET
    ? deriveInternalKeys(config.INTERNAL_SECRET)
    : await loadOrCreateInternalKeys(config.DATA_DIR);
  const redis = redisTarget('npm start', config);
  const cache = redis
    ? createSharedCache(redis, { keyPrefix: config.REDIS_PREFIX, logger: serviceLogger(logger, 'cache') })
    : createMemoryCache();
  stack.defer('the cache', () => cache.close());
  // One bus for billing and keys (publishers) and identity (consumer): RabbitMQ, or in-process in the embedded mode.
  const bus = config.AMQP_URL
    ? createAmqpBus({ url: config.AMQP_URL, exchange: config.BUS_EXCHANGE, logger: serviceLogger(logger, 'bus') })
    : createMemoryBus({ exchange: config.BUS_EXCHANGE, logger: serviceLogger(logger, 'bus') });
  stack.defer('the bus', () => bus.close());
  return { internalKeys, cache, bus };
}

/** What the launcher decides for a service behind the gateway; the rest of its variables come from the environment. */
const behindGateway = (config: LauncherConfig, internalKeys: InternalKeys, service: ServiceName) => ({
  HOST: '127.0.0.1',
  PORT: '0',
  LOG_LEVEL: config.LOG_LEVEL,
  DATA_DIR: config.DATA_DIR,
  DATABASE_URL: config.DATABASE_URL ? serviceDatabaseUrl(config.DATABASE_URL, service) : undefined,
  INTERNAL_SECRET: internalKeys[service],
});

/**
 * One service behind the gateway, started as a phase of the start and closed with the rest: its
 * configuration is the environment with behindGateway's settings and `extra` on top; its logger is named after it.
 */
async function startBehindGateway<P extends ServiceName, T extends { server: { url: string }; close(): Promise<void> }>(
  { config, logger, stack, progress }: Launch,
  internalKeys: InternalKeys,
  service: P,
  extra: Partial<LauncherSettings<P>>,
  start: (serviceConfig: EmbeddedConfig<P>, log: Logger) => Promise<T>,
): Promise<T> {
  const settings = { ...behindGateway(config, internalKeys, service), ...extra } as LauncherSettings<P>;
  const started = await phase(progress, service, () =>
    start(embeddedConfig(service, config.env, settings), serviceLogger(logger, service)),
  );
  stack.defer(`the ${service} service`, () => started.close());
  return started;
}

/** Keys, identity, catalog and device, in that order (device calls the catalog). */
async function startCoreServices(launch: Launch, { internalKeys, cache, bus }: Shared) {
  const { config, logger, stack, progress } = launch;
  const keysConfig = embeddedConfig('keys', config.env, behindGateway(config, internalKeys, 'keys'));
  const keys = await phase(progress, 'keys', () => startKeysService(keysConfig, serviceLogger(logger, 'keys'), cache, bus));
  stack.defer('the keys service', () => keys.close());
  const identity = await startBehindGateway(launch, internalKeys, 'identity', {}, (c, log) => startIdentityService(c, log, cache, bus));
  const catalogPeer = { PEER_INTERNAL_SECRET: internalKeys.deviceToCatalog };
  const catalog = await startBehindGateway(launch, internalKeys, 'catalog', catalogPeer, (c, log) => startCatalogService(c, log));
  const toCatalog = { CATALOG_URL: catalog.server.url, CATALOG_PEER_SECRET: internalKeys.deviceToCatalog };
  const device = await startBehindGateway(launch, internalKeys, 'device', toCatalog, (c, log) => startDeviceService(c, log, bus));
  return { keysConfig, keys, identity, catalog, device };
}

/** Billing and webhooks, on the shared bus. */
async function startEventServices(launch: Launch, { internalKeys, bus }: Shared) {
  const { env } = launch.config;
  const billing = await startBehindGateway(launch, internalKeys, 'billing', {}, (c, log) => startBillingService(c, log, bus));
  // One machine: the receiver a developer tries is on localhost, so private URLs are allowed unless the environment says otherwise.
  const webhookSettings = {
    ...webhookKeySettings(env, internalKeys),
    WEBHOOKS_ALLOW_PRIVATE_URLS: env.WEBHOOKS_ALLOW_PRIVATE_URLS ?? 'true',
  };
  const webhooks = await startBehindGateway(launch, internalKeys, 'webhooks', webhookSettings, (c, log) =>
    startWebhooksService(c, log, bus),
  );
  return { billing, webhooks };
}

/** The gateway in front of the services: their addresses and the internal keys it signs with. */
async function startFrontGateway(
  { config, logger, stack, progress }: Launch,
  { internalKeys, cache }: Shared,
  backends: Backends,
): Promise<Gateway> {
  const gateway = await phase(progress, 'gateway', () =>
    startGateway(
      embeddedConfig('gateway', config.env, {
        HOST: config.HOST,
        PORT: String(config.PORT),
        METRICS_PORT: config.METRICS_PORT === null ? 'off' : String(config.METRICS_PORT),
        LOG_LEVEL: config.LOG_LEVEL,
        INTERNAL_SECRET: undefined,
        INTERNAL_SECRET_KEYS: internalKeys.keys,
        INTERNAL_SECRET_IDENTITY: internalKeys.identity,
        INTERNAL_SECRET_CATALOG: internalKeys.catalog,
        INTERNAL_SECRET_DEVICE: internalKeys.device,
        INTERNAL_SECRET_BILLING: internalKeys.billing,
        INTERNAL_SECRET_WEBHOOKS: internalKeys.webhooks,
        KEYS_URL: backends.keys.server.url,
        IDENTITY_URL: backends.identity.server.url,
        CATALOG_URL: backends.catalog.server.url,
        DEVICE_URL: backends.device.server.url,
        BILLING_URL: backends.billing.server.url,
        WEBHOOKS_URL: backends.webhooks.server.url,
      }),
      serviceLogger(logger, 'gateway'),
      cache,
    ),
  );
  stack.defer('the gateway', () => gateway.close());
  return gateway;
}

/**
 * Starts every service, each its own HTTP server on loopback, and the gateway in front, sharing
 * one cache (in-process unless REDIS_URL or REDIS_CLUSTER_NODES is set). Used by `npm start` and the end-to-end tests.
 * A failed start stops what had started, newest first.
 */
export function startSystem(config: LauncherConfig, logger: Logger, progress: StartProgress = () => {}): Promise<RunningSystem> {
  return startWithCloseStack(logger, async (stack) => {
    const launch: Launch = { config, logger, stack, progress };
    await openStorage(launch);
    const shared = await openShared(launch);
    const { keysConfig, ...core } = await startCoreServices(launch, shared);
    const backends = { ...core, ...(await startEventServices(launch, shared)) };
    const gateway = await startFrontGateway(launch, shared, backends);
    const generatedSystemKey = keysConfig.SEED_API_KEY ? null : await ensureSystemKey(backends.keys.deps);
    // After the operator's key: the first start still prints one, whatever the dashboard holds.
    const dashboard = await phase(progress, 'dashboard', () =>
      startEmbeddedDashboard(config, backends.keys.deps, gateway.server.url, serviceLogger(logger, 'dashboard')),
    );
    stack.defer('the dashboard', () => dashboard.close());
    if (!config.DATABASE_URL) stack.defer('the CLI socket', await serveCliSocket(config.DATA_DIR, shared.cache, logger));
    return {
      gatewayUrl: gateway.server.url,
      ...backends,
      gateway,
      cache: shared.cache,
      bus: shared.bus,
      generatedSystemKey,
      seedKey: keysConfig.SEED_API_KEY ? { key: keysConfig.SEED_API_KEY, scopes: keysConfig.SEED_API_SCOPES } : null,
      internalKeys: shared.internalKeys,
      dashboard,
      dashboardUrl: dashboard.server.url,
      stop: stack.close,
    };
  });
}
