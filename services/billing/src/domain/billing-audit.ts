import { appendAudit, auditRecordedPayload, defineAuditTable, type AuditActor, type AuditChange } from '@acs/audit';
import { defineOutboxTable, recordAuditEvent } from '@acs/outbox';
import type { Queryable } from '@acs/db';
import { toView, type Subscription } from './subscription.js';

/** migrations/004_audit.sql; the lock key spells 'baud' (the outbox relay's is 'bill'). */
export const BILLING_AUDIT = defineAuditTable('billing', 'audit_log', 0x62617564);

/** migrations/004_audit.sql: audit.recorded events for identity's feed; the relay's lock key spells 'baob'. */
export const BILLING_AUDIT_OUTBOX = defineOutboxTable('audit_outbox', 0x62616f62);

/**
 * Records a subscription change in billing's audit trail, inside the change's transaction. The
 * view is the one the API answers (plan, status, period): no payment detail.
 */
export async function recordSubscriptionChange(
  tx: Queryable,
  actor: AuditActor,
  action: 'subscription.activated' | 'subscription.changed' | 'subscription.canceled',
  before: Subscription | null,
  after: Subscription,
  now: Date,
): Promise<void> {
  const change: AuditChange = {
    action,
    targetType: 'subscription',
    targetId: after.id,
    userId: after.userId,
    before: before ? { ...toView(before, now) } : null,
    after: { ...toView(after, now) },
  };
  const entry = await appendAudit(tx, BILLING_AUDIT, actor, change);
  // Identity's feed (GET /api/AuditLog) gets the entry through the outbox (docs/architecture.md, decision 14).
  await recordAuditEvent(tx, BILLING_AUDIT_OUTBOX, auditRecordedPayload(BILLING_AUDIT.service, entry, actor, change));
}
