import { appendAudit, defineAuditTable, type AuditActor } from '@acs/audit';
import type { Queryable } from '@acs/db';
import { toView, type Subscription } from './subscription.js';

/** migrations/004_audit.sql; the lock key spells 'baud' (the outbox relay's is 'bill'). */
export const BILLING_AUDIT = defineAuditTable('billing', 'audit_log', 0x62617564);

/**
 * Records a subscription change in billing's audit trail, inside the change's transaction. The
 * view is the one the API answers (plan, status, period): no payment detail.
 */
export function recordSubscriptionChange(
  tx: Queryable,
  actor: AuditActor,
  action: 'subscription.activated' | 'subscription.changed' | 'subscription.canceled',
  before: Subscription | null,
  after: Subscription,
  now: Date,
): Promise<void> {
  return appendAudit(tx, BILLING_AUDIT, actor, {
    action,
    targetType: 'subscription',
    targetId: after.id,
    userId: after.userId,
    before: before ? { ...toView(before, now) } : null,
    after: { ...toView(after, now) },
  });
}
