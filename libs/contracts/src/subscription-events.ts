import { z } from 'zod';
import { busEventSchema, routingKeysOf } from './bus-event.js';
import { planQuotaSchema } from './quota.js';

/**
 * Subscription events: billing publishes them (through its outbox) to the durable topic exchange,
 * identity consumes them to keep the user's subscription end and plan type current. Both ends
 * parse with these schemas (docs/architecture.md, decision 4). A breaking change gets a new `.vN` type
 * published next to the old one until every consumer reads the new one.
 */
export const SUBSCRIPTION_EVENT_TYPES = {
  activated: 'subscription.activated.v1',
  changed: 'subscription.changed.v1',
  canceled: 'subscription.canceled.v1',
} as const;

export type SubscriptionEventKind = keyof typeof SUBSCRIPTION_EVENT_TYPES;
export type SubscriptionEventType = (typeof SUBSCRIPTION_EVENT_TYPES)[SubscriptionEventKind];

/** Routing keys on the exchange; consumers bind `subscription.*`. */
export const SUBSCRIPTION_ROUTING_KEYS = routingKeysOf(SUBSCRIPTION_EVENT_TYPES);

export const SUBSCRIPTION_EVENTS_BINDING = 'subscription.*';

/**
 * Status of the subscription the event is about: `active` (also after a cancel at period end,
 * until that end), `canceled` (ended at once: a Lifetime subscription has no period end to wait for).
 */
const subscriptionEventStatusSchema = z.enum(['active', 'canceled']);

const isoTimestamp = z.iso.datetime({ offset: true });

export const subscriptionEventPayloadSchema = z.object({
  /** Same as the envelope id: consumers record it to apply each event once. */
  eventId: z.uuid(),
  userId: z.number().int().positive(),
  subscriptionId: z.uuid(),
  /** 0 Free, 1 Monthly, 2 Yearly, 3 Lifetime. */
  planType: z.number().int().min(1).max(3),
  status: subscriptionEventStatusSchema,
  /** When the access ends; null for Lifetime (never ends). */
  currentPeriodEnd: isoTimestamp.nullable(),
  cancelAtPeriodEnd: z.boolean(),
  /** Billing's outbox position: increases per user in commit order, so a consumer can ignore an older event arriving late. */
  sequence: z.number().int().positive(),
  occurredAt: isoTimestamp,
  /** The plan's id and its quota when the event was written (issue 29); absent in events written before quotas. */
  planId: z.string().min(1).optional(),
  quota: planQuotaSchema.optional(),
});
export type SubscriptionEventPayload = z.infer<typeof subscriptionEventPayloadSchema>;

/** The whole envelope of a subscription event, as it travels on the bus. */
export const subscriptionEventSchema = busEventSchema(
  [SUBSCRIPTION_EVENT_TYPES.activated, SUBSCRIPTION_EVENT_TYPES.changed, SUBSCRIPTION_EVENT_TYPES.canceled],
  subscriptionEventPayloadSchema,
);
export type SubscriptionEvent = z.infer<typeof subscriptionEventSchema>;

/**
 * What a consumer stores as the subscription end: the period end, or for Lifetime (null) a
 * far-future instant, so `effectiveRole` (which compares subscriptionEndsAt with now) needs no change.
 */
export const LIFETIME_SUBSCRIPTION_END = new Date('9999-12-31T23:59:59.000Z');
export const subscriptionEndOf = (currentPeriodEnd: string | null): Date =>
  currentPeriodEnd === null ? LIFETIME_SUBSCRIPTION_END : new Date(currentPeriodEnd);
