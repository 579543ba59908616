import type { Queryable } from '@acs/db';
import type { User } from '../domain/user.js';
import { findUserById } from './users-repository.js';

/** A stored session (a sign-in). */
export interface Session {
  id: string;
  userId: number;
  device: string;
  address: string | null;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
  endedAt: Date | null;
}

interface SessionRow {
  id: string;
  user_id: number | string;
  device: string;
  address: string | null;
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
  ended_at: Date | null;
}

const COLUMNS = 'id, user_id, device, address, created_at, last_seen_at, expires_at, ended_at';

const fromRow = (row: SessionRow): Session => ({
  id: row.id,
  userId: Number(row.user_id),
  device: row.device,
  address: row.address,
  createdAt: row.created_at,
  lastSeenAt: row.last_seen_at,
  expiresAt: row.expires_at,
  endedAt: row.ended_at,
});

/** How long an expired session's row is kept (listed nowhere; pruned at the user's next sign-in). */
const KEEP_EXPIRED_DAYS = 30;

export async function insertSession(
  db: Queryable,
  input: { id: string; userId: number; device: string; address: string | null; expiresAt: Date },
): Promise<void> {
  await db.query('INSERT INTO sessions (id, user_id, device, address, expires_at) VALUES ($1, $2, $3, $4, $5)', [
    input.id,
    input.userId,
    input.device,
    input.address,
    input.expiresAt,
  ]);
  // The user's own old rows go with each sign-in, so the table holds about a month of sign-ins per user.
  await db.query(`DELETE FROM sessions WHERE user_id = $1 AND expires_at < now() - make_interval(days => $2)`, [
    input.userId,
    KEEP_EXPIRED_DAYS,
  ]);
}

/** The live sessions (not ended, token unexpired), newest first. */
export async function listLiveSessions(db: Queryable, userId: number): Promise<Session[]> {
  const { rows } = await db.query<SessionRow>(
    `SELECT ${COLUMNS} FROM sessions WHERE user_id = $1 AND ended_at IS NULL AND expires_at > now() ORDER BY created_at DESC, id`,
    [userId],
  );
  return rows.map(fromRow);
}

export async function findSession(db: Queryable, userId: number, id: string): Promise<Session | null> {
  const { rows } = await db.query<SessionRow>(`SELECT ${COLUMNS} FROM sessions WHERE user_id = $1 AND id = $2`, [userId, id]);
  return rows[0] ? fromRow(rows[0]) : null;
}

/** Moves last_seen_at only when it is older than `everySeconds`: a write every few minutes, not one per request. */
export async function touchSession(db: Queryable, userId: number, id: string, everySeconds: number): Promise<void> {
  await db.query(
    `UPDATE sessions SET last_seen_at = now()
     WHERE user_id = $1 AND id = $2 AND ended_at IS NULL AND last_seen_at < now() - make_interval(secs => $3)`,
    [userId, id, everySeconds],
  );
}

/** Serializes changes of one user's sessions (each recomputes the ended list from what committed before it); false: no such user. */
export async function lockUserForSessions(db: Queryable, userId: number): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [userId]);
  return rowCount > 0;
}

/** Ends the user's live sessions that `which` selects (one id, or all but one); returns the ones it ended. */
export async function endSessions(db: Queryable, userId: number, which: { only: string } | { except: string | null }): Promise<Session[]> {
  const { rows } =
    'only' in which
      ? await db.query<SessionRow>(
          `UPDATE sessions SET ended_at = now() WHERE user_id = $1 AND id = $2 AND ended_at IS NULL RETURNING ${COLUMNS}`,
          [userId, which.only],
        )
      : await db.query<SessionRow>(
          `UPDATE sessions SET ended_at = now() WHERE user_id = $1 AND ended_at IS NULL AND id IS DISTINCT FROM $2 RETURNING ${COLUMNS}`,
          [userId, which.except],
        );
  return rows.map(fromRow);
}

/**
 * Recomputes the user's ended-session list (ended, token not yet expired: the rest need no entry, their
 * tokens fail on `exp`) and bumps the version, so the write-through replaces the cached record.
 * Run after lockUserForSessions in the same transaction.
 */
export async function refreshEndedSessions(db: Queryable, userId: number): Promise<User | null> {
  const { rowCount } = await db.query(
    `UPDATE users SET version = version + 1, updated_at = now(), ended_sessions = ARRAY(
       SELECT id FROM sessions WHERE user_id = $1 AND ended_at IS NOT NULL AND expires_at > now() ORDER BY ended_at, id)
     WHERE id = $1`,
    [userId],
  );
  return rowCount ? findUserById(db, userId) : null;
}
