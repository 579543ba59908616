import type { BusEnvelope } from '@acs/bus';
import { defineOutboxTable, outboxEnvelope, outboxGaugeNames, type OutboxRow } from '@acs/outbox';
import { envelopeSchemaOf } from './envelope-schema.js';

/** migrations/001_create_billing.sql; the lock key spells 'bill'. */
export const BILLING_OUTBOX = defineOutboxTable('outbox', 0x62696c6c);

export const BILLING_OUTBOX_GAUGES = outboxGaugeNames('billing', 'subscription');

/**
 * The envelope exactly as consumers parse it (a subscription event, or a plan's quota change: issue 29);
 * the row id is the per-user ordering sequence.
 */
export function toSubscriptionEnvelope(row: OutboxRow): BusEnvelope {
  return envelopeSchemaOf(row.type).parse(outboxEnvelope(row, true));
}
