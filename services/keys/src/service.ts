import { internalKeys } from '@acs/config';
import { fileURLToPath } from 'node:url';
import { createBusMetrics, instrumentBus, type Bus } from '@acs/bus';
import { openConfiguredDatabase, type PeriodicPurge } from '@acs/db';
import { startAuditRelay, startAuditRetention, systemActor } from '@acs/audit';
import { registerOutboxGauges, startOutboxRelay, type OutboxRelay } from '@acs/outbox';
import type { Cache } from '@acs/cache';
import type { Logger } from '@acs/logger';
import { listen, startWithCloseStack, type CloseStack, type RunningServer } from '@acs/http';
import { createMetricsRegistry, type Registry } from '@acs/metrics';
import type { KeysConfig } from './config.js';
import { buildKeysApp } from './app.js';
import type { KeysDeps } from './domain/deps.js';
import { startUsagePurge } from './domain/usage-purge.js';
import { startExpirySweep } from './domain/expiry-sweep.js';
import { loadScannerKeys, type ScannerKeys } from './domain/scanner-signature.js';
import { startUserDeletedConsumer } from './events/user-deleted-consumer.js';
import { consumeLater } from '@acs/bus';
import { applySeedKey } from './domain/operator-keys.js';
import { KEYS_AUDIT, KEYS_AUDIT_OUTBOX } from './events/keys-audit.js';
import { KEYS_OUTBOX, KEYS_OUTBOX_GAUGES, toApiKeyEnvelope } from './events/keys-outbox.js';

export const KEYS_MIGRATIONS_DIR = fileURLToPath(new URL('../migrations/', import.meta.url));

export interface KeysService {
  server: RunningServer;
  deps: KeysDeps;
  relay: OutboxRelay;
  /** The expiry reminders' sweep (its first pass starts with the service). */
  expirySweep: PeriodicPurge;
  /** Stops the HTTP server and the relay, then closes the database. The bus and the cache belong to the caller. */
  close(): Promise<void>;
}

/**
 * Opens this service's database (PostgreSQL when DATABASE_URL is set, else PGlite under DATA_DIR/keys), migrated.
 * Outbox rows written through these deps wait for a relay's next poll (startKeysService wakes its own).
 */
export async function openKeysDeps(
  config: Pick<KeysConfig, 'DATABASE_URL' | 'DATA_DIR' | 'KEY_PREFIX'>,
  logger: Logger,
  cache: Cache,
): Promise<KeysDeps> {
  const db = await openConfiguredDatabase('keys', config, KEYS_MIGRATIONS_DIR, logger);
  return { db, cache, logger, keyPrefix: config.KEY_PREFIX, onOutboxWrite: () => undefined, actor: systemActor('keys') };
}

/** The outbox relay (API key events) and the audit trail's relay and retention; the deps returned wake both relays after a commit. */
function startRelays(
  stack: CloseStack,
  config: KeysConfig,
  logger: Logger,
  bus: Bus,
  opened: KeysDeps,
  metrics: Registry,
): { relay: OutboxRelay; deps: KeysDeps } {
  const relay = startOutboxRelay({
    db: opened.db,
    // Publishes by outcome on this service's /metrics.
    bus: instrumentBus(bus, createBusMetrics(metrics)),
    logger,
    table: KEYS_OUTBOX,
    toEnvelope: toApiKeyEnvelope,
    pollIntervalMs: config.OUTBOX_POLL_INTERVAL_MS,
    retryMinMs: config.OUTBOX_RETRY_MIN_MS,
    retryMaxMs: config.OUTBOX_RETRY_MAX_MS,
  });
  stack.defer('the outbox relay', () => relay.close());
  stack.defer('the audit retention', startAuditRetention(opened.db, KEYS_AUDIT, config.AUDIT_RETENTION_DAYS, logger));
  const auditRelay = startAuditRelay({ db: opened.db, bus, logger, table: KEYS_AUDIT_OUTBOX }, config);
  stack.defer('the audit relay', () => auditRelay.close());
  const deps: KeysDeps = {
    ...opened,
    onOutboxWrite: () => {
      relay.wake();
      auditRelay.wake();
    },
  };
  return { relay, deps };
}

/** What runs beside the HTTP server: the user-events consumer, the usage purge and the expiry sweep. */
function startBackground(stack: CloseStack, config: KeysConfig, logger: Logger, bus: Bus, deps: KeysDeps): PeriodicPurge {
  stack.defer('the user-events consumer', consumeLater(startUserDeletedConsumer(deps, bus, config.USER_EVENTS_QUEUE), logger));
  const purge = startUsagePurge(deps.db, config.USAGE_RETENTION_DAYS, logger);
  stack.defer('the usage purge', () => purge.stop());
  const sweep = startExpirySweep(deps, config.KEY_EXPIRY_SWEEP_SECONDS);
  stack.defer('the expiry sweep', () => sweep.stop());
  return sweep;
}

/** startKeysService's steps once the close stack is there, in start-up order (the stack closes them in reverse). */
async function startOnStack(
  stack: CloseStack,
  config: KeysConfig,
  logger: Logger,
  cache: Cache,
  bus: Bus,
  scannerKeys: ScannerKeys,
): Promise<KeysService> {
  const opened = await openKeysDeps(config, logger, cache);
  stack.defer('the database', () => opened.db.close());
  const metrics = createMetricsRegistry('keys');
  registerOutboxGauges(metrics, opened.db, logger, KEYS_OUTBOX, KEYS_OUTBOX_GAUGES);
  const { relay, deps } = startRelays(stack, config, logger, bus, opened, metrics);
  if (config.SEED_API_KEY) {
    await applySeedKey(deps, {
      key: config.SEED_API_KEY,
      secret: config.SEED_API_SECRET!,
      scopes: config.SEED_API_SCOPES,
      name: config.SEED_API_NAME,
    });
  }
  const expirySweep = startBackground(stack, config, logger, bus, deps);
  const app = buildKeysApp({
    deps,
    internalSecret: internalKeys(config),
    migrationsDir: KEYS_MIGRATIONS_DIR,
    keysPerUser: config.KEYS_PER_USER,
    rateLimitCeiling: config.RATE_LIMIT_CEILING,
    maxLifetimeDays: config.KEY_MAX_LIFETIME_DAYS ?? null,
    usageRetentionDays: config.USAGE_RETENTION_DAYS,
    requireVerifiedEmail: config.REQUIRE_VERIFIED_EMAIL_FOR_KEYS,
    metrics,
    scannerKeys,
  });
  const server = await listen(app.callback(), config.PORT, config.HOST);
  stack.defer('the HTTP server', () => server.close());
  logger.info({ url: server.url }, 'keys service listening');
  return { server, deps, relay, expirySweep, close: stack.close };
}

/**
 * Starts the keys service and its outbox relay (API key events). The cache and the bus are passed
 * in: the embedded mode shares them with the gateway and the other services; main.ts makes them
 * from REDIS_URL and AMQP_URL.
 */
export async function startKeysService(config: KeysConfig, logger: Logger, cache: Cache, bus: Bus): Promise<KeysService> {
  // Checked before anything is opened: a bad seed must not leave a database pool behind.
  if (config.SEED_API_KEY && !config.SEED_API_SECRET) throw new Error('SEED_API_SECRET is required when SEED_API_KEY is set');
  const scannerKeys = loadScannerKeys(config.SECRET_SCANNING_PUBLIC_KEYS, config.SECRET_SCANNING_PUBLIC_KEYS_FILE);
  // A failed start (bad seed, port taken) closes what it opened: no pool stays behind.
  return startWithCloseStack(logger, (stack) => startOnStack(stack, config, logger, cache, bus, scannerKeys));
}
