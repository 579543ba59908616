import { randomUUID } from 'node:crypto';
import type { Queryable } from '@acs/db';
import {
  SUBSCRIPTION_EVENT_TYPES,
  SUBSCRIPTION_ROUTING_KEYS,
  subscriptionEventPayloadSchema,
  type SubscriptionEventKind,
} from '../contracts.js';
import { currentTraceCarrier, insertOutboxEvent } from '@acs/outbox';
import { planQuotaForEvent } from '../data-access/plans-repository.js';
import { BILLING_OUTBOX } from '../relay/billing-outbox.js';
import type { Subscription } from './subscription.js';

/** Payload checked against the contract (with a placeholder sequence) before it is stored, so a bad event fails the request, not the relay. */
const storedPayloadSchema = subscriptionEventPayloadSchema.omit({ sequence: true });

/**
 * Records the event in the outbox inside the caller's transaction: the subscription change and
 * its event commit together or not at all (docs/architecture.md, decision 4). The request's trace
 * context goes with it, so the relay publishes the event inside that trace.
 */
export async function recordEvent(
  tx: Queryable,
  kind: SubscriptionEventKind,
  subscription: Subscription,
  occurredAt: Date,
): Promise<string> {
  const eventId = randomUUID();
  // Identity copies the quota into the user's authorization record (issue 29).
  const quota = await planQuotaForEvent(tx, subscription.planId);
  const payload = storedPayloadSchema.parse({
    eventId,
    userId: subscription.userId,
    subscriptionId: subscription.id,
    planType: subscription.planType,
    status: subscription.status === 'canceled' ? 'canceled' : 'active',
    currentPeriodEnd: subscription.currentPeriodEnd?.toISOString() ?? null,
    cancelAtPeriodEnd: subscription.cancelAtPeriodEnd,
    occurredAt: occurredAt.toISOString(),
    planId: subscription.planId,
    ...(quota ? { quota } : {}),
  });
  await insertOutboxEvent(tx, BILLING_OUTBOX, {
    eventId,
    userId: subscription.userId,
    type: SUBSCRIPTION_EVENT_TYPES[kind],
    routingKey: SUBSCRIPTION_ROUTING_KEYS[kind],
    payload,
    occurredAt,
    traceContext: currentTraceCarrier(),
  });
  return eventId;
}
