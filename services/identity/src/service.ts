import { startAuditRetention, systemActor } from '@acs/audit';
import { IDENTITY_AUDIT } from './domain/account-audit.js';
import { pruneFeed } from './data-access/audit-feed-repository.js';
import { internalKeys } from '@acs/config';
import { fileURLToPath } from 'node:url';
import { openConfiguredDatabase } from '@acs/db';
import { createMemoryCache, type Cache } from '@acs/cache';
import { createAmqpBus, createBusMetrics, instrumentBus, LateSubscription, type Bus } from '@acs/bus';
import type { Logger } from '@acs/logger';
import { listen, startWithCloseStack, type CloseStack, type RunningServer } from '@acs/http';
import { createMetricsRegistry, type Registry } from '@acs/metrics';
import type { IdentityConfig } from './config.js';
import { buildIdentityApp } from './app.js';
import type { IdentityDeps, UserStore } from './domain/deps.js';
import { createPasswordHasher } from './domain/passwords.js';
import { applySeedAdmin, assertSeedAdmin, type SeedAdmin } from './domain/seed-admin.js';
import { loadSigner, type JwtSigner } from './domain/signing-keys.js';
import { startOutboxRelay } from '@acs/outbox';
import { loadTotpKey, type TotpKey } from './domain/totp-secret-box.js';
import { sealPlaintextSecrets } from './domain/seal-plaintext-secrets.js';
import { IDENTITY_OUTBOX, toUserEventEnvelope } from './domain/identity-outbox.js';
import { startSubscriptionEventsConsumer } from './consumers/subscription-events-consumer.js';
import { startProcessedEventsPruner } from './consumers/processed-events-pruner.js';
import { createIdentityMetrics } from './identity-metrics.js';
import { storeFallbackQuotas } from './data-access/plan-quotas-repository.js';
import type { Mailer } from './mail/mailer.js';
import { createSmtpMailer } from './mail/smtp-mailer.js';
import { createMailboxFileMailer, devMailboxFile, mailboxProblem } from './mail/mailbox-file-mailer.js';
import { createDroppingMailer } from './mail/dropping-mailer.js';

/** SMTP when SMTP_URL is set, else the dev mailbox under DATA_DIR (npm start's offline flows). */
const openMailer = (config: IdentityConfig): Mailer =>
  config.SMTP_URL
    ? createSmtpMailer(config.SMTP_URL, config.MAIL_FROM)
    : createMailboxFileMailer(devMailboxFile(config.DATA_DIR), config.MAIL_FROM);

export const IDENTITY_MIGRATIONS_DIR = fileURLToPath(new URL('../migrations/', import.meta.url));

export interface IdentityService {
  server: RunningServer;
  deps: IdentityDeps;
  /**
   * Resolves once subscription events are consumed (at once without a bus). Start does not wait for
   * it: logins must not depend on the broker being up. Never rejects (a failure is logged).
   */
  eventsReady: Promise<void>;
  close(): Promise<void>;
}

type StoreConfig = Pick<IdentityConfig, 'DATABASE_URL' | 'DATA_DIR'>;

/** Opens this service's database (PostgreSQL when DATABASE_URL is set, else PGlite under DATA_DIR/identity), migrated. */
export async function openIdentityStore(config: StoreConfig, logger: Logger, cache: Cache): Promise<UserStore> {
  const db = await openConfiguredDatabase('identity', config, IDENTITY_MIGRATIONS_DIR, logger);
  return { db, cache, logger, actor: systemActor('identity') };
}

/**
 * Everything the HTTP use cases need. The signer is loaded first (by startIdentityService) so a bad
 * key opens nothing; the registry is the one the service serves at /metrics.
 */
export async function openIdentityDeps(
  config: IdentityConfig,
  logger: Logger,
  cache: Cache,
  signer?: JwtSigner,
  registry: Registry = createMetricsRegistry('identity'),
): Promise<IdentityDeps> {
  const loadedSigner =
    signer ??
    (await loadSigner(
      { signingKey: config.JWT_SIGNING_KEY, verificationKeys: config.JWT_VERIFICATION_KEYS, dataDir: config.DATA_DIR },
      logger,
    ));
  const passwords = await createPasswordHasher(config.BCRYPT_COST);
  const store = await openIdentityStore(config, logger, cache);
  let totpKey: TotpKey;
  let mailProblem: string | null;
  try {
    await storeFallbackQuotas(store.db, { trial: config.TRIAL_QUOTA, none: config.NO_SUBSCRIPTION_QUOTA });
    mailProblem = config.SMTP_URL ? null : await mailboxProblem(devMailboxFile(config.DATA_DIR));
    if (mailProblem) logger.error({ dataDir: config.DATA_DIR }, mailProblem);
    totpKey = await loadTotpKey(config.TOTP_ENCRYPTION_KEY, config.DATA_DIR, logger);
    await sealPlaintextSecrets(store.db, totpKey, logger);
  } catch (err) {
    await store.db.close();
    throw err;
  }
  return {
    ...store,
    passwords,
    signer: loadedSigner,
    settings: {
      trialDurationSeconds: config.TRIAL_DURATION_SECONDS,
      jwtTtlSeconds: config.JWT_TTL_SECONDS,
      jwtIssuer: config.JWT_ISSUER,
      jwtAudience: config.JWT_AUDIENCE,
      maxFailuresPerAccountAddress: config.LOGIN_MAX_FAILURES_PER_ACCOUNT_ADDRESS,
      maxFailuresPerAccount: config.LOGIN_MAX_FAILURES_PER_ACCOUNT,
      maxFailuresPerAddress: config.LOGIN_MAX_FAILURES_PER_ADDRESS,
      failureWindowSeconds: config.LOGIN_FAILURE_WINDOW_SECONDS,
      knownAddressSeconds: config.LOGIN_KNOWN_ADDRESS_DAYS * 24 * 3600,
      maxRegistrationsPerAddress: config.REGISTRATION_MAX_PER_ADDRESS,
      registrationWindowSeconds: config.REGISTRATION_WINDOW_SECONDS,
      dashboardUrl: config.DASHBOARD_PUBLIC_URL.replace(/\/+$/, ''),
    },
    metrics: createIdentityMetrics(registry),
    localLimiter: createMemoryCache(),
    mailer: mailProblem ? createDroppingMailer(logger, mailProblem) : openMailer(config),
    totpKey,
  };
}

/** How often old processed subscription events are pruned (processed-events-pruner.ts). */
const PRUNE_EVERY_MS = 60 * 60 * 1000;

/** What startIdentityService checked and made before anything was opened, for the steps that open. */
interface IdentityStart {
  config: IdentityConfig;
  logger: Logger;
  cache: Cache;
  bus: Bus | undefined;
  seed: SeedAdmin | null;
  signer: JwtSigner;
  metrics: Registry;
}

/** The use cases' deps, and the steps that close them (the database, the limiter, the mailer, the audit retention). */
async function openDepsOnStack(stack: CloseStack, start: IdentityStart): Promise<IdentityDeps> {
  const { config, logger } = start;
  const deps = await openIdentityDeps(config, logger, start.cache, start.signer, start.metrics);
  stack.defer('the database', () => deps.db.close());
  stack.defer('the local sign-in limiter', () => deps.localLimiter.close());
  stack.defer('the mailer', async () => deps.mailer.close());
  logger.info({ mail: deps.mailer.describe }, 'identity sends mail through this');
  stack.defer('the audit retention', startAuditRetention(deps.db, IDENTITY_AUDIT, config.AUDIT_RETENTION_DAYS, logger, pruneFeed));
  return deps;
}

/** The bus events come from: the one passed in, else a RabbitMQ bus of its own when AMQP_URL is set, else none. */
function openEventBus(stack: CloseStack, start: IdentityStart): Bus | null {
  const { config, logger } = start;
  const ownBus =
    !start.bus && config.AMQP_URL
      ? createAmqpBus({ url: config.AMQP_URL, exchange: config.BUS_EXCHANGE, logger, connectionName: `identity-${process.pid}` })
      : null;
  if (ownBus) stack.defer('the message bus', () => ownBus.close());
  const given = start.bus ?? ownBus;
  // Deliveries by outcome (ack, retry, dead_lettered) on this service's /metrics.
  return given ? instrumentBus(given, createBusMetrics(start.metrics)) : null;
}

/** What runs only where there is a bus: the processed-events pruner and the outbox relay. */
function startEventBackground(stack: CloseStack, start: IdentityStart, deps: IdentityDeps, eventBus: Bus): void {
  const { config, logger } = start;
  // Only where events arrive: without a bus processed_events does not grow.
  const pruner = startProcessedEventsPruner(deps.db, config.PROCESSED_EVENTS_RETENTION_DAYS, PRUNE_EVERY_MS, logger);
  stack.defer('the processed-events pruner', () => pruner.stop());
  // user.deleted.v1 (issue 32): published where there is a bus; without one the rows wait in the outbox.
  const relay = startOutboxRelay({
    db: deps.db,
    bus: eventBus,
    logger,
    table: IDENTITY_OUTBOX,
    toEnvelope: toUserEventEnvelope,
    pollIntervalMs: config.OUTBOX_POLL_INTERVAL_MS,
    retryMinMs: config.OUTBOX_RETRY_MIN_MS,
    retryMaxMs: config.OUTBOX_RETRY_MAX_MS,
  });
  stack.defer('the outbox relay', () => relay.close());
  deps.onOutboxWrite = () => relay.wake();
}

/**
 * Subscribes to billing's subscription events without waiting (logins must not depend on the broker being up);
 * its `ready` is the service's eventsReady. Handlers in flight finish (and ack) before the database goes away.
 */
function subscribeToEvents(stack: CloseStack, start: IdentityStart, deps: IdentityDeps, eventBus: Bus): LateSubscription {
  const { config, logger } = start;
  const subscribing = startSubscriptionEventsConsumer(deps, eventBus, {
    queue: config.SUBSCRIPTION_EVENTS_QUEUE,
    maxAttempts: config.SUBSCRIPTION_EVENTS_MAX_ATTEMPTS,
    retryDelaysMs: config.SUBSCRIPTION_EVENTS_RETRY_DELAYS_MS,
  });
  const consumer = new LateSubscription(subscribing, logger, 'could not subscribe to subscription events; roles will not follow billing');
  stack.defer('the subscription-events consumer', () => consumer.close());
  return consumer;
}

/** startIdentityService's steps once the close stack is there, in start-up order (the stack closes them in reverse). */
async function startOnStack(stack: CloseStack, start: IdentityStart): Promise<IdentityService> {
  const { config, logger, metrics } = start;
  const deps = await openDepsOnStack(stack, start);
  const eventBus = openEventBus(stack, start);
  if (eventBus) startEventBackground(stack, start, deps, eventBus);
  if (start.seed) await applySeedAdmin(deps, start.seed);
  const consumer = eventBus ? subscribeToEvents(stack, start, deps, eventBus) : null;
  const app = buildIdentityApp({ deps, internalSecret: internalKeys(config), migrationsDir: IDENTITY_MIGRATIONS_DIR, metrics });
  const server = await listen(app.callback(), config.PORT, config.HOST);
  stack.defer('the HTTP server', () => server.close());
  logger.info({ url: server.url, kid: start.signer.kid }, 'identity service listening');
  return {
    server,
    deps,
    eventsReady: consumer === null ? Promise.resolve() : consumer.ready,
    close: async () => {
      consumer?.beginClose();
      await stack.close();
    },
  };
}

/**
 * Starts the identity service; the cache is passed in because the embedded mode shares one with the
 * gateway. With a bus (the embedded mode shares its in-process one with billing), or else with
 * AMQP_URL (a RabbitMQ bus of its own, closed with the service), it consumes subscription events.
 */
export async function startIdentityService(config: IdentityConfig, logger: Logger, cache: Cache, bus?: Bus): Promise<IdentityService> {
  // Checked before anything is opened: a bad seed or key must not leave a database pool behind.
  const seed = assertSeedAdmin(config.SEED_ADMIN_EMAIL, config.SEED_ADMIN_PASSWORD);
  const signer = await loadSigner(
    { signingKey: config.JWT_SIGNING_KEY, verificationKeys: config.JWT_VERIFICATION_KEYS, dataDir: config.DATA_DIR },
    logger,
  );
  const metrics = createMetricsRegistry('identity');
  // A failed start (seed, port taken) closes what it opened: no pool stays behind.
  return startWithCloseStack(logger, (stack) => startOnStack(stack, { config, logger, cache, bus, seed, signer, metrics }));
}
