import { internalKeys } from '@acs/config';
import { fileURLToPath } from 'node:url';
import { consumeLater, createBusMetrics, instrumentBus, type Bus } from '@acs/bus';
import { startUserDeletedConsumer } from './consumers/user-deleted-consumer.js';
import { openConfiguredDatabaseIn, type Db } from '@acs/db';
import type { Logger } from '@acs/logger';
import { listen, startWithCloseStack, type RunningServer } from '@acs/http';
import { createMetricsRegistry } from '@acs/metrics';
import type { BillingConfig } from './config.js';
import { buildBillingApp } from './app.js';
import { purgeExpiredAnswers } from './data-access/idempotency-repository.js';
import type { BillingDeps } from './domain/deps.js';
import { noPaymentGateway, type PaymentGateway } from './domain/payment-gateway.js';
import { registerOutboxGauges, startOutboxRelay, type OutboxRelay } from '@acs/outbox';
import { startAuditRelay, startAuditRetention, systemActor } from '@acs/audit';
import { BILLING_AUDIT, BILLING_AUDIT_OUTBOX } from './domain/billing-audit.js';
import { BILLING_OUTBOX, BILLING_OUTBOX_GAUGES, toSubscriptionEnvelope } from './relay/billing-outbox.js';

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
export function startBillingService(
  config: BillingConfig,
  logger: Logger,
  bus: Bus,
  options: BillingServiceOptions = {},
): Promise<BillingService> {
  // A failed start closes what it opened (relay, pool) before the error goes on.
  return startWithCloseStack(logger, async (stack) => {
    const db = await openConfiguredDatabaseIn(stack, 'billing', config, BILLING_MIGRATIONS_DIR, logger);
    const metrics = createMetricsRegistry('billing');
    registerOutboxGauges(metrics, db, logger, BILLING_OUTBOX, BILLING_OUTBOX_GAUGES);
    const relay = startOutboxRelay({
      db,
      // Publishes by outcome on this service's /metrics.
      bus: instrumentBus(bus, createBusMetrics(metrics)),
      logger,
      table: BILLING_OUTBOX,
      toEnvelope: toSubscriptionEnvelope,
      pollIntervalMs: config.OUTBOX_POLL_INTERVAL_MS,
      retryMinMs: config.OUTBOX_RETRY_MIN_MS,
      retryMaxMs: config.OUTBOX_RETRY_MAX_MS,
    });
    stack.defer('the outbox relay', () => relay.close());
    const auditRelay = startAuditRelay({ db, bus, logger, table: BILLING_AUDIT_OUTBOX }, config);
    stack.defer('the audit relay', () => auditRelay.close());
    stack.defer('the audit retention', startAuditRetention(db, BILLING_AUDIT, config.AUDIT_RETENTION_DAYS, logger));
    const deps: BillingDeps = {
      db,
      logger,
      payments: options.payments ?? noPaymentGateway,
      settings: {
        periodSeconds: { month: config.BILLING_PERIOD_SECONDS_MONTHLY, year: config.BILLING_PERIOD_SECONDS_YEARLY },
        idempotencyKeyTtlSeconds: config.IDEMPOTENCY_KEY_TTL_SECONDS,
      },
      onOutboxWrite: () => {
        relay.wake();
        auditRelay.wake();
      },
      actor: systemActor('billing'),
    };
    stack.defer('the user-events consumer', consumeLater(startUserDeletedConsumer(deps, bus, config.USER_EVENTS_QUEUE), logger));
    const purge = setInterval(() => {
      purgeExpiredAnswers(db, config.IDEMPOTENCY_KEY_TTL_SECONDS).catch((err: unknown) =>
        logger.warn({ err }, 'could not purge expired idempotency keys'),
      );
    }, PURGE_INTERVAL_MS);
    purge.unref();
    stack.defer('the idempotency-key purge', () => clearInterval(purge));
    const app = buildBillingApp({ deps, internalSecret: internalKeys(config), migrationsDir: BILLING_MIGRATIONS_DIR, metrics });
    const server = await listen(app.callback(), config.PORT, config.HOST);
    stack.defer('the HTTP server', () => server.close());
    logger.info({ url: server.url, exchange: config.BUS_EXCHANGE }, 'billing service listening');
    return { server, db, deps, relay, close: stack.close };
  });
}
