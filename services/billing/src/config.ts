import { z } from 'zod';
import { auditFields, busFields, outboxFields, serviceFields, userEventsFields, wholeNumber } from '@acs/config';

const DAY = 24 * 3600;

export const billingConfigSchema = z.object({
  ...serviceFields(8085),
  ...busFields(),
  ...userEventsFields('billing'),
  /** Length of a Monthly / Yearly period; tests shorten them to seconds. */
  BILLING_PERIOD_SECONDS_MONTHLY: wholeNumber(1, 366 * DAY, 30 * DAY),
  BILLING_PERIOD_SECONDS_YEARLY: wholeNumber(1, 3660 * DAY, 365 * DAY),
  /** How long an Idempotency-Key answer is replayed. */
  IDEMPOTENCY_KEY_TTL_SECONDS: wholeNumber(60, 30 * DAY, DAY),
  ...outboxFields(),
  ...auditFields(),
});

export type BillingConfig = z.infer<typeof billingConfigSchema>;
