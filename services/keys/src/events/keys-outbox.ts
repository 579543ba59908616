import type { BusEnvelope } from '@acs/bus';
import { QUOTA_THRESHOLD_EVENT_TYPE, apiKeyEventSchema, quotaThresholdEventSchema } from '@acs/contracts';
import { defineOutboxTable, outboxEnvelope, outboxGaugeNames, type OutboxRow } from '@acs/outbox';

/** migrations/007_outbox.sql; the lock key spells 'keys'. */
export const KEYS_OUTBOX = defineOutboxTable('outbox', 0x6b657973);

export const KEYS_OUTBOX_GAUGES = outboxGaugeNames('keys', 'API key');

/**
 * The envelope exactly as consumers parse it: an API key event (the row id is its ordering sequence),
 * or a quota threshold crossing (issue 29).
 */
export function toApiKeyEnvelope(row: OutboxRow): BusEnvelope {
  if (row.type === QUOTA_THRESHOLD_EVENT_TYPE) return quotaThresholdEventSchema.parse(outboxEnvelope(row, false));
  return apiKeyEventSchema.parse(outboxEnvelope(row, true));
}
