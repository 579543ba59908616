import { z } from 'zod';
import { amqpUrl, logLevel, port, postgresUrl, secret } from '@acs/config';
import { DEFAULT_BUS_EXCHANGE } from './contracts.js';

const wholeNumber = (min: number, max: number, fallback: number) =>
  z.coerce
    .number({ error: 'expected a whole number' })
    .int('expected a whole number')
    .min(min, `expected at least ${min}`)
    .max(max, `expected at most ${max}`)
    .default(fallback);

const DAY = 24 * 3600;

export const billingConfigSchema = z.object({
  PORT: port(8085),
  HOST: z.string().default('0.0.0.0'),
  LOG_LEVEL: logLevel(),
  /** This service's own database; created when missing. Unset: embedded PGlite under DATA_DIR. */
  DATABASE_URL: postgresUrl().optional(),
  DATA_DIR: z.string().default('./.data'),
  INTERNAL_SECRET: secret(),
  /** RabbitMQ. Required by main.ts (standalone); the embedded mode passes its in-process bus instead. */
  AMQP_URL: amqpUrl().optional(),
  BUS_EXCHANGE: z.string().min(1).default(DEFAULT_BUS_EXCHANGE),
  /** Length of a Monthly / Yearly period; tests shorten them to seconds. */
  BILLING_PERIOD_SECONDS_MONTHLY: wholeNumber(1, 366 * DAY, 30 * DAY),
  BILLING_PERIOD_SECONDS_YEARLY: wholeNumber(1, 3660 * DAY, 365 * DAY),
  /** How long an Idempotency-Key answer is replayed. */
  IDEMPOTENCY_KEY_TTL_SECONDS: wholeNumber(60, 30 * DAY, DAY),
  /** The outbox relay polls this often even when nothing wakes it (a write by another replica). */
  OUTBOX_POLL_INTERVAL_MS: wholeNumber(10, 60_000, 1_000),
  /** Backoff after a failed publish starts at OUTBOX_RETRY_MIN_MS and doubles up to OUTBOX_RETRY_MAX_MS. */
  OUTBOX_RETRY_MIN_MS: wholeNumber(10, 60_000, 250),
  OUTBOX_RETRY_MAX_MS: wholeNumber(10, 600_000, 30_000),
});

export type BillingConfig = z.infer<typeof billingConfigSchema>;
