import { z } from 'zod';
import { amqpUrl, booleanFlag, logLevel, port, postgresUrl, redisClusterNodes, redisUrl, secret, wholeNumber } from './fields.js';

// The variables every process shares, spelled once; a service's schema spreads these and adds its own:
// `z.object({ ...serviceFields(8082), CATALOG_SEED: booleanFlag(true) })`.

/** Any HTTP process: where it listens and how much it logs. */
export const listenerFields = (defaultPort: number) => ({
  PORT: port(defaultPort),
  HOST: z.string().default('0.0.0.0'),
  LOG_LEVEL: logLevel(),
});

/** A service behind the gateway: it owns a database and trusts only gateway-signed calls. */
export const serviceFields = (defaultPort: number) => ({
  ...listenerFields(defaultPort),
  /** This service's own database; created when missing. Unset: embedded PGlite under DATA_DIR. */
  DATABASE_URL: postgresUrl().optional(),
  DATA_DIR: z.string().default('./.data'),
  /**
   * At start, how long to wait for a PostgreSQL that does not answer yet (refused, timed out, starting up)
   * before failing: a pod started during a failover comes up when the server does, not after a crash-loop
   * backoff. Within the k8s startupProbe's minute. A wrong password or role fails at once.
   */
  DATABASE_WAIT_SECONDS: wholeNumber(0, 600, 45),
  /**
   * This service's own internal key: it verifies the caller context the gateway signs for this service.
   * Only the gateway holds it too (as INTERNAL_SECRET_<SERVICE>); every service has a different one.
   */
  INTERNAL_SECRET: secret(),
  /** During a rotation only: the key INTERNAL_SECRET replaces, still accepted until the gateway signs with the new one. */
  INTERNAL_SECRET_PREVIOUS: secret().optional(),
});

/** The keys a service accepts contexts under: its own, then (during a rotation) the one it replaces. */
export const internalKeys = (config: { INTERNAL_SECRET: string; INTERNAL_SECRET_PREVIOUS?: string | undefined }): string[] =>
  config.INTERNAL_SECRET_PREVIOUS ? [config.INTERNAL_SECRET, config.INTERNAL_SECRET_PREVIOUS] : [config.INTERNAL_SECRET];

/**
 * The shared Redis (key records, authorization records); unset where the caller passes a cache in.
 * One Redis (REDIS_URL) or a Redis Cluster (REDIS_CLUSTER_NODES and its credentials), never both:
 * redisTarget() reads them.
 */
export const redisFields = () => ({
  REDIS_URL: redisUrl().optional(),
  REDIS_CLUSTER_NODES: redisClusterNodes().optional(),
  REDIS_CLUSTER_USERNAME: z.string().optional(),
  REDIS_CLUSTER_PASSWORD: z.string().optional(),
  REDIS_CLUSTER_TLS: booleanFlag(false),
  REDIS_PREFIX: z.string().default('acs:'),
});

/** A service that publishes events. AMQP_URL is required by its main.ts (standalone); the embedded mode passes its in-process bus instead. */
export const busFields = () => ({
  AMQP_URL: amqpUrl().optional(),
  /** The exchange every service publishes to unless BUS_EXCHANGE says otherwise. */
  BUS_EXCHANGE: z.string().min(1).default('acs.events'),
});

/**
 * A consumer of identity's user events (user.deleted): its durable queue, `<service>.user-events` unless
 * USER_EVENTS_QUEUE says otherwise (a deployment sharing a broker, such as the container smoke, names its own).
 */
export const userEventsFields = (service: string) => ({
  USER_EVENTS_QUEUE: z.string().min(1).max(200).default(`${service}.user-events`),
});

/** A service with a transactional outbox (libs/outbox): how often its relay polls and how it backs off after a failed publish. */
export const outboxFields = () => ({
  /** The outbox relay polls this often even when nothing wakes it (a write by another replica or a CLI). */
  OUTBOX_POLL_INTERVAL_MS: wholeNumber(10, 60_000, 1_000),
  /** Backoff after a failed publish starts at OUTBOX_RETRY_MIN_MS and doubles up to OUTBOX_RETRY_MAX_MS. */
  OUTBOX_RETRY_MIN_MS: wholeNumber(10, 60_000, 250),
  OUTBOX_RETRY_MAX_MS: wholeNumber(10, 600_000, 30_000),
});

/** A service that keeps an audit trail (libs/audit): how long entries are kept, in days (0: forever). */
export const auditFields = () => ({
  AUDIT_RETENTION_DAYS: wholeNumber(0, 36_500, 365),
});
