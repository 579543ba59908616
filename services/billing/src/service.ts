import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { createBusMetrics, instrumentBus, type Bus } from '@acs/bus';
import { openDatabase, migrate, type Db } from '@acs/db';
import type { Logger } from '@acs/logger';
import { listen, type RunningServer } from '@acs/http';
import { createMetricsRegistry } from '@acs/metrics';
import type { BillingConfig } from './config.js';
import { buildBillingApp } from './app.js';
import { purgeExpiredAnswers } from './data-access/idempotency-repository.js';
import type { BillingDeps } from './domain/deps.js';
import { noPaymentGateway, type PaymentGateway } from './domain/payment-gateway.js';
import { startOutboxRelay, type OutboxRelay } from './relay/outbox-relay.js';
import { registerOutboxGauges } from './relay/outbox-gauges.js';

export const BILLING_MIGRATIONS_DIR = fileURLToPath(new URL('../migrations/', import.meta.url));

const PURGE_INTERVAL_MS = 3600_000;

export interface BillingService {
  server: RunningServer;
  db: Db;
  deps: BillingDeps;
  relay: OutboxRelay;
  /** Stops the HTTP server and the relay, then closes the database. The bus belongs to the caller. */
  close(): Promise<void>;
}

export interface BillingServiceOptions {
  /** Where a payment provider plugs in; the default approves without charging (README.md). */
  payments?: PaymentGateway;
}

/**
 * Starts billing and its outbox relay. The bus is passed in: main.ts makes a RabbitMQ one from
 * AMQP_URL, the embedded mode shares its in-process bus with identity.
 */
export async function startBillingService(config: BillingConfig, logger: Logger, bus: Bus, options: BillingServiceOptions = {}): Promise<BillingService> {
  const db: Db = await openDatabase(config.DATABASE_URL ? { url: config.DATABASE_URL, logger } : { dataDir: join(config.DATA_DIR, 'billing'), logger });
  let relay: OutboxRelay | null = null;
  let purge: NodeJS.Timeout | null = null;
  try {
    await migrate(db, BILLING_MIGRATIONS_DIR, logger);
    const metrics = createMetricsRegistry('billing');
    registerOutboxGauges(metrics, db, logger);
    relay = startOutboxRelay({
      db,
      // Publishes by outcome on this service's /metrics.
      bus: instrumentBus(bus, createBusMetrics(metrics)),
      logger,
      pollIntervalMs: config.OUTBOX_POLL_INTERVAL_MS,
      retryMinMs: config.OUTBOX_RETRY_MIN_MS,
      retryMaxMs: Math.max(config.OUTBOX_RETRY_MIN_MS, config.OUTBOX_RETRY_MAX_MS),
    });
    const running = relay;
    const deps: BillingDeps = {
      db,
      logger,
      payments: options.payments ?? noPaymentGateway,
      settings: {
        periodSeconds: { month: config.BILLING_PERIOD_SECONDS_MONTHLY, year: config.BILLING_PERIOD_SECONDS_YEARLY },
        idempotencyKeyTtlSeconds: config.IDEMPOTENCY_KEY_TTL_SECONDS,
      },
      onOutboxWrite: () => running.wake(),
    };
    purge = setInterval(() => {
      purgeExpiredAnswers(db, config.IDEMPOTENCY_KEY_TTL_SECONDS).catch((err: unknown) => logger.warn({ err }, 'could not purge expired idempotency keys'));
    }, PURGE_INTERVAL_MS);
    purge.unref();
    const app = buildBillingApp({ deps, internalSecret: config.INTERNAL_SECRET, migrationsDir: BILLING_MIGRATIONS_DIR, metrics });
    const server = await listen(app.callback(), config.PORT, config.HOST);
    logger.info({ url: server.url, exchange: config.BUS_EXCHANGE }, 'billing service listening');
    const timer = purge;
    return {
      server,
      db,
      deps,
      relay: running,
      close: async () => {
        clearInterval(timer);
        await server.close();
        await running.close();
        await db.close();
      },
    };
  } catch (err) {
    if (purge) clearInterval(purge);
    await relay?.close().catch(() => undefined);
    await db.close().catch((closeErr: unknown) => logger.error({ err: closeErr }, 'could not close the database after a failed start'));
    throw err;
  }
}
