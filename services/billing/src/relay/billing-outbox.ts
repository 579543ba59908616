import type { BusEnvelope } from '@acs/bus';
import { defineOutboxTable, type OutboxGaugeNames, type OutboxRow } from '@acs/outbox';
import { envelopeSchemaOf } from './envelope-schema.js';

/** migrations/001_create_billing.sql; the lock key spells 'bill'. */
export const BILLING_OUTBOX = defineOutboxTable('outbox', 0x62696c6c);

export const BILLING_OUTBOX_GAUGES: OutboxGaugeNames = {
  pending: 'billing_outbox_pending_events',
  oldestAge: 'billing_outbox_oldest_pending_age_seconds',
  subject: 'subscription',
};

/**
 * The envelope exactly as consumers parse it (a subscription event, or a plan's quota change: issue 29);
 * the row id is the per-user ordering sequence.
 */
export function toSubscriptionEnvelope(row: OutboxRow): BusEnvelope {
  return envelopeSchemaOf(row.type).parse({
    id: row.eventId,
    type: row.type,
    occurredAt: row.occurredAt.toISOString(),
    payload: { ...row.payload, sequence: row.id },
  });
}
