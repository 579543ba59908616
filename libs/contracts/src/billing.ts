import { z } from 'zod';
import { planQuotaSchema } from './quota.js';

// /api/SubscriptionPlans and /api/Subscriptions. The spec leaves plan and subscription fields open;
// these are the platform's decision (services/billing/README.md).

const billingIntervalSchema = z.enum(['none', 'month', 'year', 'lifetime']);

const subscriptionPlanSchema = z.object({
  id: z.string().describe('stable plan id: free, monthly, yearly, lifetime'),
  name: z.string(),
  planType: z.number().int().min(0).max(3).describe('0 Free, 1 Monthly, 2 Yearly, 3 Lifetime'),
  price: z.number().describe('price per billing interval, in currency units (e.g. 4.99)'),
  currency: z.string().describe('ISO 4217 code'),
  billingInterval: billingIntervalSchema,
  quota: planQuotaSchema.describe(
    "requests a subscriber's keys together may make per UTC calendar month and per UTC day; null: no cap (issue 29)",
  ),
});
export const subscriptionPlanListResponseSchema = z.object({ items: z.array(subscriptionPlanSchema) });

export const subscriptionCreateRequestSchema = z.strictObject({
  planId: z.string().trim().min(1, 'planId must not be empty').max(64).describe('id of a paid plan from GET /api/SubscriptionPlans'),
});

/** `Idempotency-Key` request header: visible ASCII, 1-255 characters. */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
export const idempotencyKeySchema = z.string().regex(/^[\x21-\x7E]{1,255}$/, 'expected 1-255 visible ASCII characters');

/**
 * active: grants the role until currentPeriodEnd (also when cancelAtPeriodEnd is true);
 * expired: the period ended; replaced: ended early by a subscription to another plan;
 * canceled: ended at once (a Lifetime subscription canceled by its owner).
 */
const subscriptionStatusSchema = z.enum(['active', 'expired', 'replaced', 'canceled']);

export const subscriptionViewSchema = z.object({
  id: z.uuid(),
  planId: z.string(),
  planType: z.number().int().min(1).max(3),
  status: subscriptionStatusSchema,
  currentPeriodStart: z.string().describe('ISO 8601 UTC'),
  currentPeriodEnd: z.string().nullable().describe('ISO 8601 UTC; null for Lifetime'),
  cancelAtPeriodEnd: z.boolean(),
  createdAt: z.string().describe('ISO 8601 UTC'),
  endedAt: z.string().nullable().describe('ISO 8601 UTC; set when replaced or canceled at once'),
});
export const subscriptionListResponseSchema = z.object({ items: z.array(subscriptionViewSchema) });

export type SubscriptionPlanView = z.infer<typeof subscriptionPlanSchema>;
export type SubscriptionView = z.infer<typeof subscriptionViewSchema>;
export type SubscriptionCreateRequest = z.infer<typeof subscriptionCreateRequestSchema>;
