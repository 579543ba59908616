import {
  QUOTA_THRESHOLD_EVENT_TYPE,
  QUOTA_THRESHOLD_ROUTING_KEY,
  quotaThresholdEventPayloadSchema,
  type QuotaThresholdCrossing,
} from '@acs/contracts';
import type { Queryable } from '@acs/db';
import { insertOutboxEvent } from '@acs/outbox';
import { recordQuotaCrossings } from '../data-access/quota-crossings-repository.js';
import { KEYS_OUTBOX } from './keys-outbox.js';

/**
 * The gateways' quota threshold crossings (issue 29): each recorded once per user, period, period start
 * and percent, and the new ones written to keys' outbox in the caller's transaction as
 * `quota.threshold.v1` events (for notifications and webhooks), so a crossing is published exactly when
 * it is recorded, at least once.
 */
export async function recordQuotaThresholdEvents(tx: Queryable, crossings: readonly QuotaThresholdCrossing[]): Promise<number> {
  const recorded = await recordQuotaCrossings(tx, crossings);
  for (const { eventId, occurredAt, ...crossing } of recorded) {
    const payload = quotaThresholdEventPayloadSchema.parse({ ...crossing, eventId, occurredAt: occurredAt.toISOString() });
    await insertOutboxEvent(tx, KEYS_OUTBOX, {
      eventId,
      userId: crossing.userId,
      type: QUOTA_THRESHOLD_EVENT_TYPE,
      routingKey: QUOTA_THRESHOLD_ROUTING_KEY,
      payload,
      occurredAt,
      traceContext: null,
    });
  }
  return recorded.length;
}
