import { randomUUID } from 'node:crypto';
import type { BusEnvelope } from '@acs/bus';
import type { Queryable } from '@acs/db';
import { USER_DELETED_EVENT_TYPE, USER_DELETED_ROUTING_KEY, userDeletedEventSchema } from '@acs/contracts';
import { currentTraceCarrier, defineOutboxTable, insertOutboxEvent, outboxEnvelope, type OutboxRow } from '@acs/outbox';

/** migrations/012_account_deletion.sql; the lock key spells 'idob'. */
export const IDENTITY_OUTBOX = defineOutboxTable('outbox', 0x69646f62);

/** The envelope exactly as consumers parse it (libs/contracts account-deletion.ts). */
export function toUserEventEnvelope(row: OutboxRow): BusEnvelope {
  return userDeletedEventSchema.parse(outboxEnvelope(row, false));
}

/** `user.deleted.v1`, written in the deletion's transaction: it goes out once the deletion commits, and only then. */
export async function recordUserDeleted(tx: Queryable, userId: number): Promise<void> {
  const eventId = randomUUID();
  const occurredAt = new Date();
  await insertOutboxEvent(tx, IDENTITY_OUTBOX, {
    eventId,
    userId,
    type: USER_DELETED_EVENT_TYPE,
    routingKey: USER_DELETED_ROUTING_KEY,
    payload: { eventId, userId, occurredAt: occurredAt.toISOString() },
    occurredAt,
    traceContext: currentTraceCarrier(),
  });
}
