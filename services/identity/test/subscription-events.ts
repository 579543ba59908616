import { randomUUID } from 'node:crypto';
import type { BusEnvelope } from '@acs/bus';
import { SUBSCRIPTION_EVENT_TYPES, type SubscriptionEventKind } from '../src/consumers/contracts.js';

let sequence = 0;

/** A subscription event as billing's relay publishes it. */
export function subscriptionEvent(
  kind: SubscriptionEventKind,
  userId: number,
  overrides: {
    planType?: number;
    currentPeriodEnd?: string | null;
    status?: 'active' | 'canceled';
    occurredAt?: string;
    sequence?: number;
  } = {},
): BusEnvelope {
  const id = randomUUID();
  const occurredAt = overrides.occurredAt ?? new Date().toISOString();
  sequence += 1;
  return {
    id,
    type: SUBSCRIPTION_EVENT_TYPES[kind],
    occurredAt,
    payload: {
      eventId: id,
      userId,
      subscriptionId: randomUUID(),
      planType: overrides.planType ?? 1,
      status: overrides.status ?? 'active',
      currentPeriodEnd:
        overrides.currentPeriodEnd === undefined ? new Date(Date.now() + 30 * 24 * 3600_000).toISOString() : overrides.currentPeriodEnd,
      cancelAtPeriodEnd: kind === 'canceled',
      sequence: overrides.sequence ?? sequence,
      occurredAt,
    },
  };
}
