import type { OutboxRow } from './outbox-repository.js';

export interface OutboxEnvelopeFields {
  id: string;
  type: string;
  occurredAt: string;
  payload: Record<string, unknown>;
}

/**
 * A stored event's envelope, for the service's own schema to parse before the relay publishes it.
 * `sequenced`: the row id joins the payload as `sequence`, the order consumers apply a user's
 * events in (a subscription's or a key's changes); events without an order leave the payload as stored.
 */
export function outboxEnvelope(row: OutboxRow, sequenced: boolean): OutboxEnvelopeFields {
  return {
    id: row.eventId,
    type: row.type,
    occurredAt: row.occurredAt.toISOString(),
    payload: sequenced ? { ...row.payload, sequence: row.id } : row.payload,
  };
}
