import { randomUUID } from 'node:crypto';
import type { AuditActor, AuditChange } from './audit-entry.js';

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
  if (change.userId === null) return null;
  return {
    eventId: randomUUID(),
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
