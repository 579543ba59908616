import { z } from 'zod';
import { amqpUrl, serviceFields, wholeNumber } from '@acs/config';
import { DEFAULT_BUS_EXCHANGE } from './contracts.js';

const DAY = 24 * 3600;

export const billingConfigSchema = z.object({
  ...serviceFields(8085),
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
