import { appendAudit, auditView, defineAuditTable, type AuditActor, type AuditChange } from '@acs/audit';
import { insertFeedEntry } from '../data-access/audit-feed-repository.js';
import type { Queryable } from '@acs/db';
import type { User } from './user.js';

/** migrations/006_audit.sql; the lock key spells 'iaud'. */
export const IDENTITY_AUDIT = defineAuditTable('identity', 'audit_log', 0x69617564);

export type AccountAuditAction =
  | 'account.created'
  | 'account.seeded'
  | 'account.role_changed'
  | 'account.trial_changed'
  | 'account.subscription_changed'
  | 'account.deleted';

/** What the trail shows of an account: never the password hash. */
const ACCOUNT_VIEW = ['email', 'firstName', 'lastName', 'accountRole', 'trialEndsAt', 'subscriptionEndsAt', 'planType'] as const;
const accountView = (user: User) => auditView(user, ACCOUNT_VIEW);

/**
 * Records an account change in identity's audit trail, inside the change's transaction. A
 * registration has no signed-in user yet: the new account is the actor.
 */
export async function recordAccountChange(
  tx: Queryable,
  actor: AuditActor,
  action: AccountAuditAction,
  before: User | null,
  after: User,
): Promise<void> {
  const who = actor.type === 'user' && actor.id === null ? { ...actor, id: String(after.id) } : actor;
  const change: AuditChange = {
    action,
    targetType: 'account',
    targetId: String(after.id),
    userId: after.id,
    before: before ? accountView(before) : null,
    after: accountView(after),
  };
  const entry = await appendAudit(tx, IDENTITY_AUDIT, who, change);
  // Identity's own entries reach the feed behind GET /api/AuditLog directly, in the same transaction.
  await insertFeedEntry(tx, {
    service: IDENTITY_AUDIT.service,
    entryId: entry.id,
    occurredAt: entry.occurredAt.toISOString(),
    actor: who,
    action,
    targetType: change.targetType,
    targetId: change.targetId,
    userId: after.id,
    before: change.before,
    after: change.after,
  });
}
