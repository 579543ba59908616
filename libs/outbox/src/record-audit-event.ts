import type { Queryable } from '@acs/db';
import { insertOutboxEvent } from './outbox-repository.js';
import type { OutboxTable } from './outbox-table.js';
import { currentTraceCarrier } from './trace-context.js';

/** `audit.recorded.v1` (libs/contracts audit.ts); spelled here too so libs/outbox needs no contracts. */
const AUDIT_RECORDED = { type: 'audit.recorded.v1', routingKey: 'audit.recorded' };

/**
 * Puts an audit entry's `audit.recorded` payload (libs/audit auditRecordedPayload) in the service's
 * outbox, in the entry's transaction; nothing for an entry in no user's trail.
 */
export async function recordAuditEvent(
  tx: Queryable,
  table: OutboxTable,
  payload: (Record<string, unknown> & { eventId: string; userId: number }) | null,
): Promise<void> {
  if (payload === null) return;
  await insertOutboxEvent(tx, table, {
    eventId: payload.eventId,
    userId: payload.userId,
    type: AUDIT_RECORDED.type,
    routingKey: AUDIT_RECORDED.routingKey,
    payload,
    occurredAt: new Date(),
    traceContext: currentTraceCarrier(),
  });
}
