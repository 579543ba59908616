import type { BusEnvelope } from '@acs/bus';
import { QUOTA_THRESHOLD_EVENT_TYPE, apiKeyEventSchema, quotaThresholdEventSchema } from '@acs/contracts';
import { defineOutboxTable, type OutboxGaugeNames, type OutboxRow } from '@acs/outbox';

/** migrations/007_outbox.sql; the lock key spells 'keys'. */
export const KEYS_OUTBOX = defineOutboxTable('outbox', 0x6b657973);

export const KEYS_OUTBOX_GAUGES: OutboxGaugeNames = {
  pending: 'keys_outbox_pending_events',
  oldestAge: 'keys_outbox_oldest_pending_age_seconds',
  subject: 'API key',
};

/**
 * The envelope exactly as consumers parse it: an API key event (the row id is its ordering sequence),
 * or a quota threshold crossing (issue 29).
 */
export function toApiKeyEnvelope(row: OutboxRow): BusEnvelope {
  if (row.type === QUOTA_THRESHOLD_EVENT_TYPE)
    return quotaThresholdEventSchema.parse({
      id: row.eventId,
      type: row.type,
      occurredAt: row.occurredAt.toISOString(),
      payload: row.payload,
    });
  return apiKeyEventSchema.parse({
    id: row.eventId,
    type: row.type,
    occurredAt: row.occurredAt.toISOString(),
    payload: { ...row.payload, sequence: row.id },
  });
}
