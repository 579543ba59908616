import { appendAudit, appendAuditMany, auditFeedFields, auditView, defineAuditTable, type AuditActor, type AuditChange } from '@acs/audit';
import { insertFeedEntries, insertFeedEntry } from '../data-access/audit-feed-repository.js';
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

const actorFor = (actor: AuditActor, userId: number): AuditActor =>
  actor.type === 'user' && actor.id === null ? { ...actor, id: String(userId) } : actor;

/**
 * Appends an entry to identity's trail and, in the same transaction, to the feed behind GET
 * /api/AuditLog (identity's own entries go there directly). A request without a signed-in user (a
 * registration, a sign-in, a reset link) names the account it acts on as the actor.
 */
export async function recordIdentityEntry(tx: Queryable, actor: AuditActor, change: AuditChange & { userId: number }): Promise<void> {
  const who = actorFor(actor, change.userId);
  const entry = await appendAudit(tx, IDENTITY_AUDIT, who, change);
  await insertFeedEntry(tx, auditFeedFields(IDENTITY_AUDIT.service, entry, who, change));
}

/**
 * Several entries, in order, as one append (libs/audit appendAuditMany) and one feed insert: a
 * group of sign-ins holds the chain's lock for a few round trips, not a few per sign-in.
 */
export async function recordIdentityEntries(
  tx: Queryable,
  entries: readonly { actor: AuditActor; change: AuditChange & { userId: number } }[],
): Promise<void> {
  const named = entries.map(({ actor, change }) => ({ actor: actorFor(actor, change.userId), change }));
  const appended = await appendAuditMany(tx, IDENTITY_AUDIT, named);
  await insertFeedEntries(
    tx,
    named.map(({ actor, change }, i) => auditFeedFields(IDENTITY_AUDIT.service, appended[i]!, actor, change)),
  );
}

/** Records an account change in identity's audit trail, inside the change's transaction. */
export async function recordAccountChange(
  tx: Queryable,
  actor: AuditActor,
  action: AccountAuditAction,
  before: User | null,
  after: User,
): Promise<void> {
  await recordIdentityEntry(tx, actor, {
    action,
    targetType: 'account',
    targetId: String(after.id),
    userId: after.id,
    before: before ? accountView(before) : null,
    after: accountView(after),
  });
}
