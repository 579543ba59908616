import type { AuditActor } from '@acs/audit';
import type { SESSION_END_REASONS } from '@acs/contracts';
import type { Queryable } from '@acs/db';
import { recordIdentityEntries, recordIdentityEntry } from './account-audit.js';

/**
 * Why a session ended (the contract's list, libs/contracts audit.ts): its user signed it out, ended it
 * from another session, ended every other one, or changed or reset the password.
 */
export type SessionEndReason = (typeof SESSION_END_REASONS)[number];

/** What the trail shows of a session: its device label and times. Its address is the actor's (the sign-in's), never copied here. */
export interface SessionAuditView {
  id: string;
  device: string;
  expiresAt: Date;
}

/** Sign-ins opened sessions: one entry each, in order, in the sessions' own transaction, each signing-in user as actor. */
export async function recordSessionsCreated(
  tx: Queryable,
  opened: readonly { actor: AuditActor; userId: number; session: SessionAuditView }[],
): Promise<void> {
  await recordIdentityEntries(
    tx,
    opened.map(({ actor, userId, session }) => ({
      actor,
      change: {
        action: 'session.created',
        targetType: 'session',
        targetId: session.id,
        userId,
        before: null,
        after: { device: session.device, expiresAt: session.expiresAt.toISOString() },
      },
    })),
  );
}

/** Sessions ended by one change: one entry each (the target filter finds a session's whole story), in the change's transaction. */
export async function recordSessionsEnded(
  tx: Queryable,
  actor: AuditActor,
  userId: number,
  ended: readonly (SessionAuditView & { endedAt: Date | null })[],
  reason: SessionEndReason,
): Promise<void> {
  for (const session of ended)
    await recordIdentityEntry(tx, actor, {
      action: 'session.ended',
      targetType: 'session',
      targetId: session.id,
      userId,
      before: { device: session.device, endedAt: null },
      after: { device: session.device, endedAt: session.endedAt?.toISOString() ?? null, reason },
    });
}
