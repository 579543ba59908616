import { randomBytes } from 'node:crypto';
import { SESSION_ID_PATTERN, type SessionView } from '@acs/contracts';
import { notFound } from '@acs/errors';
import type { Queryable } from '@acs/db';
import {
  endSessions,
  findSession,
  listLiveSessions,
  lockUserForSessions,
  refreshEndedSessions,
  touchSession,
  type Session,
} from '../data-access/sessions-repository.js';
import type { UserStore } from './deps.js';
import { deviceLabel } from './device-label.js';
import { recordSessionsEnded, type SessionEndReason } from './session-audit.js';
import { openSessionGrouped } from './session-opening.js';
import { changeWithWriteThrough } from './write-through.js';

/** last_seen_at moves at most this often: a session's activity to the nearest few minutes, not a write per request. */
const LAST_SEEN_EVERY_SECONDS = 300;

/** 72 random bits as 12 base64url characters (SESSION_ID_PATTERN). */
const newSessionId = (): string => randomBytes(9).toString('base64url');

/**
 * Opens the session a sign-in's token will name (it lives as long as that token), with its audit
 * entry in the same transaction: the transaction of the sign-ins that arrive together (session-opening.ts).
 */
export async function openSession(
  { db, actor }: Pick<UserStore, 'db' | 'actor'>,
  userId: number,
  from: { userAgent: string | undefined; clientIp: string | undefined },
  expiresAtSeconds: number,
): Promise<string> {
  const session = { id: newSessionId(), device: deviceLabel(from.userAgent), expiresAt: new Date(expiresAtSeconds * 1000) };
  const address = from.clientIp && from.clientIp.length <= 64 ? from.clientIp : null;
  await openSessionGrouped(db, { session, userId, address, actor });
  return session.id;
}

const toView = (session: Session, currentId: string | undefined): SessionView => ({
  id: session.id,
  device: session.device,
  address: session.address,
  createdAt: session.createdAt.toISOString(),
  lastSeenAt: session.lastSeenAt.toISOString(),
  expiresAt: session.expiresAt.toISOString(),
  endedAt: session.endedAt?.toISOString() ?? null,
  current: session.id === currentId,
});

/** The user's live sessions, the caller's own marked (and its last-seen moved, at most every few minutes). */
export async function listSessions(deps: UserStore, userId: number, currentId: string | undefined): Promise<SessionView[]> {
  if (currentId !== undefined) await touchSession(deps.db, userId, currentId, LAST_SEEN_EVERY_SECONDS);
  return (await listLiveSessions(deps.db, userId)).map((session) => toView(session, currentId));
}

const noSuchSession = () => notFound('No session with this id for this user', 'session_not_found');

/** Which of the user's live sessions to end: one, or all but one (null: every one). */
export type SessionSelection = { only: string } | { except: string | null };

/**
 * Ends sessions under the user's row lock, records each in the audit trail (`reason` says why), and
 * writes the recomputed ended list through to the authorization record before the commit: once this
 * answers, every gateway replica refuses the ended tokens on their next request. `alsoInTx` runs first
 * in the same transaction (a password change). Returns how many were ended (0: nothing to write through).
 */
export async function endSessionsWithWriteThrough(
  deps: UserStore,
  userId: number,
  which: SessionSelection,
  reason: SessionEndReason,
  alsoInTx?: (tx: Queryable) => Promise<void>,
): Promise<number> {
  let ended = 0;
  await changeWithWriteThrough(deps, async (tx) => {
    if (!(await lockUserForSessions(tx, userId))) return null;
    await alsoInTx?.(tx);
    const sessions = await endSessions(tx, userId, which);
    ended = sessions.length;
    if (ended === 0) return null;
    await recordSessionsEnded(tx, deps.actor, userId, sessions, reason);
    return refreshEndedSessions(tx, userId);
  });
  return ended;
}

/**
 * Ends one of the user's sessions (the caller's own, `currentId`, signs it out); an ended one answers
 * the same; another user's is 404.
 */
export async function endSession(deps: UserStore, userId: number, sessionId: string, currentId?: string): Promise<SessionView> {
  if (!SESSION_ID_PATTERN.test(sessionId)) throw noSuchSession();
  if (!(await findSession(deps.db, userId, sessionId))) throw noSuchSession();
  const reason = sessionId === currentId ? 'signed_out' : 'ended';
  const ended = await endSessionsWithWriteThrough(deps, userId, { only: sessionId }, reason);
  if (ended > 0) deps.logger.info({ audit: 'session.ended', userId, sessionId }, 'session ended');
  const session = await findSession(deps.db, userId, sessionId);
  if (!session) throw noSuchSession();
  return toView(session, undefined);
}

/** Ends every session of the user but `keepId` (null: every one, as a password reset does). */
export async function endOtherSessions(deps: UserStore, userId: number, keepId: string | null): Promise<number> {
  const ended = await endSessionsWithWriteThrough(deps, userId, { except: keepId }, 'ended_others');
  if (ended > 0) deps.logger.info({ audit: 'session.ended_others', userId, kept: keepId, ended }, 'other sessions ended');
  return ended;
}

/** The gateway saw the session in use: last seen moves, at most every LAST_SEEN_EVERY_SECONDS (the SQL guards it). */
export async function sessionSeen(deps: Pick<UserStore, 'db'>, userId: number, sessionId: string): Promise<void> {
  await touchSession(deps.db, userId, sessionId, LAST_SEEN_EVERY_SECONDS);
}
