import { randomUUID } from 'node:crypto';
import type { AuditActor, AuditChange } from './audit-entry.js';

/**
 * What a user's feed (GET /api/AuditLog, at identity) holds of an entry just appended to a
 * service's trail: identity writes it to the feed directly, keys and billing send it as
 * auditRecordedPayload; one mapping, so the feed shows every service's entries alike.
 */
export function auditFeedFields<C extends AuditChange & { userId: number }>(
  service: string,
  entry: { id: number; occurredAt: Date },
  actor: AuditActor,
  change: C,
) {
  return {
    service,
    entryId: entry.id,
    occurredAt: entry.occurredAt.toISOString(),
    actor,
    action: change.action,
    targetType: change.targetType,
    targetId: change.targetId,
    userId: change.userId,
    before: change.before,
    after: change.after,
  };
}

/**
 * The `audit.recorded.v1` payload (libs/contracts audit.ts) of an entry just appended: keys and
 * billing put it in their outbox in the same transaction, so identity's feed (GET /api/AuditLog)
 * gets every entry of a user's trail at least once. Null for an entry in no user's trail.
 */
export function auditRecordedPayload(
  service: string,
  entry: { id: number; occurredAt: Date },
  actor: AuditActor,
  change: AuditChange,
): (Record<string, unknown> & { eventId: string; userId: number }) | null {
  const { userId } = change;
  if (userId === null) return null;
  return { eventId: randomUUID(), ...auditFeedFields(service, entry, actor, { ...change, userId }) };
}
