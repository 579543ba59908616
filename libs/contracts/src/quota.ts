import { z } from 'zod';

/**
 * Plan quotas (issue 29): how many requests a user's keys together may make per UTC calendar month
 * and, optionally, per UTC day. Billing defines them with the plans; identity copies the user's current
 * quota into the authorization record (authz.ts) the gateway already reads on every request, so a
 * subscription change applies on the user's next request without a new read.
 */
export const planQuotaSchema = z.object({
  perMonth: z.number().int().positive().nullable().describe('requests per UTC calendar month; null: no monthly cap'),
  perDay: z.number().int().positive().nullable().describe('requests per UTC day; null: no daily cap'),
});
export type PlanQuota = z.infer<typeof planQuotaSchema>;

/** The quota as the authorization record carries it: the plan's name for the hint, and its caps. */
export const userQuotaSchema = planQuotaSchema.extend({
  plan: z.string().describe('what the 429 hint names: the plan id, "trial" or "none"'),
});
export type UserQuota = z.infer<typeof userQuotaSchema>;

export const QUOTA_PERIODS = ['day', 'month'] as const;
export type QuotaPeriod = (typeof QUOTA_PERIODS)[number];

/** The UTC period a moment falls in: `YYYY-MM-DD` for a day, `YYYY-MM` for a month. */
export function quotaPeriodStart(period: QuotaPeriod, atMs: number): string {
  const iso = new Date(atMs).toISOString();
  return period === 'day' ? iso.slice(0, 10) : iso.slice(0, 7);
}

/**
 * The user's counter for one period: the same hash tag as `authz:{<userId>}`, so on Redis Cluster it
 * lives in the slot the request already reads. The gateway increments it; keys reads it for GET /api/Usage.
 */
export const quotaCounterKey = (userId: number, period: QuotaPeriod, periodStart: string): string =>
  `quota:{${userId}}:${period === 'day' ? 'd' : 'm'}:${periodStart}`;

/** Shares of the quota that raise one event each, once per period. */
export const QUOTA_THRESHOLD_PERCENTS = [80, 90, 100] as const;

/** A user's count crossed a threshold: found by the gateway (the counter's reply), sent with its usage batch. */
export const quotaThresholdCrossingSchema = z.object({
  userId: z.number().int().positive(),
  plan: z.string(),
  period: z.enum(QUOTA_PERIODS),
  periodStart: z.string().describe('YYYY-MM-DD (day) or YYYY-MM (month), UTC'),
  percent: z.union([z.literal(80), z.literal(90), z.literal(100)]),
  quota: z.number().int().positive(),
});
export type QuotaThresholdCrossing = z.infer<typeof quotaThresholdCrossingSchema>;

/** The bus event for notifications and webhooks (`quota.threshold`), published once per user, period and percent. */
export const QUOTA_THRESHOLD_EVENT_TYPE = 'quota.threshold.v1';
export const QUOTA_THRESHOLD_ROUTING_KEY = 'quota.threshold';
export const quotaThresholdEventPayloadSchema = quotaThresholdCrossingSchema.extend({
  eventId: z.uuid(),
  occurredAt: z.iso.datetime({ offset: true }),
});
export type QuotaThresholdEventPayload = z.infer<typeof quotaThresholdEventPayloadSchema>;
