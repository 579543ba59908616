import { z } from 'zod';
import { busEventSchema } from './bus-event.js';

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

/** How an operator writes a cap (billing CLI, identity's TRIAL_QUOTA/NO_SUBSCRIPTION_QUOTA): `<requests>/<period>`, period `1d` or `1mo`. */
const QUOTA_SPEC_PERIODS: Record<string, QuotaPeriod> = { '1d': 'day', '1mo': 'month' };
const MAX_QUOTA_REQUESTS = 1_000_000_000_000;

/** `10000/1mo` -> {period: 'month', requests: 10000}; a string saying what is wrong when it is not one. */
export function parseQuotaCap(text: string): { period: QuotaPeriod; requests: number } | string {
  const match = /^\s*(\d{1,13})\s*\/\s*(1d|1mo)\s*$/.exec(text);
  if (!match) return `"${text}" is not <requests>/<period>: e.g. 10000/1mo or 500/1d (period 1d or 1mo)`;
  const requests = Number(match[1]);
  if (requests < 1 || requests > MAX_QUOTA_REQUESTS) return `"${text}": requests must be between 1 and ${MAX_QUOTA_REQUESTS}`;
  return { period: QUOTA_SPEC_PERIODS[match[2]!]!, requests };
}

/**
 * A whole quota as text: `none`, or one or two caps separated by commas (`100000/1mo,5000/1d`).
 * Returns the quota, or a string saying what is wrong.
 */
export function parsePlanQuota(text: string): PlanQuota | string {
  const quota: PlanQuota = { perMonth: null, perDay: null };
  if (text.trim().toLowerCase() === 'none') return quota;
  for (const part of text.split(',')) {
    const cap = parseQuotaCap(part);
    if (typeof cap === 'string') return cap;
    const field = cap.period === 'day' ? 'perDay' : 'perMonth';
    if (quota[field] !== null) return `"${text}" names the ${cap.period} twice`;
    quota[field] = cap.requests;
  }
  return quota;
}

/** The quota as operators write it (the inverse of parsePlanQuota). */
export const formatPlanQuota = (quota: PlanQuota): string =>
  [quota.perMonth === null ? null : `${quota.perMonth}/1mo`, quota.perDay === null ? null : `${quota.perDay}/1d`]
    .filter((part) => part !== null)
    .join(',') || 'none';

/**
 * A plan's quota changed (billing CLI `plans set-quota`): billing publishes it through its outbox,
 * identity rewrites the authorization record of every user on that plan (docs/identity-and-billing.md).
 * `sequence` is billing's outbox position, shared with the subscription events, so identity keeps the newest.
 */
export const PLAN_QUOTA_EVENT_TYPE = 'plan.quota_changed.v1';
export const PLAN_QUOTA_ROUTING_KEY = 'plan.quota_changed';
export const PLAN_EVENTS_BINDING = 'plan.*';
export const planQuotaEventPayloadSchema = z.object({
  eventId: z.uuid(),
  planId: z.string().min(1),
  quota: planQuotaSchema,
  sequence: z.number().int().positive(),
  occurredAt: z.iso.datetime({ offset: true }),
});
export const planQuotaEventSchema = busEventSchema([PLAN_QUOTA_EVENT_TYPE], planQuotaEventPayloadSchema);
export type PlanQuotaEvent = z.infer<typeof planQuotaEventSchema>;

/** The whole bus envelope of a `quota.threshold.v1` event, as keys' outbox relay checks it before publishing. */
export const quotaThresholdEventSchema = busEventSchema([QUOTA_THRESHOLD_EVENT_TYPE], quotaThresholdEventPayloadSchema);
