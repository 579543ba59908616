import type { Queryable } from '@acs/db';

/**
 * The tables of e-mailed single-use tokens (migrations 008 and 009): password reset links and
 * e-mail verification links. Both store only the token's hash with its user, expiry and use, so
 * one set of queries serves both; the name is one of these literals, never caller input.
 */
export type SingleUseTokenTable = 'password_resets' | 'email_verifications';

/** A live token is unused and unexpired. */
const LIVE = 'used_at IS NULL AND expires_at > now()';

/** Stores a new token's hash; the user's spent and expired tokens of that table go with it. */
export async function insertSingleUseToken(
  db: Queryable,
  table: SingleUseTokenTable,
  tokenHash: Buffer,
  userId: number,
  expiresAt: Date,
): Promise<void> {
  await db.query(`DELETE FROM ${table} WHERE user_id = $1 AND (used_at IS NOT NULL OR expires_at < now())`, [userId]);
  await db.query(`INSERT INTO ${table} (token_hash, user_id, expires_at) VALUES ($1, $2, $3)`, [tokenHash, userId, expiresAt]);
}

/**
 * Spends a token: marks it used and returns its user, or null when it is unknown, used or expired.
 * One UPDATE, so two concurrent uses of one token cannot both succeed.
 */
export async function spendSingleUseToken(db: Queryable, table: SingleUseTokenTable, tokenHash: Buffer): Promise<number | null> {
  const { rows } = await db.query<{ user_id: number | string }>(
    `UPDATE ${table} SET used_at = now() WHERE token_hash = $1 AND ${LIVE} RETURNING user_id`,
    [tokenHash],
  );
  return rows[0] ? Number(rows[0].user_id) : null;
}

/** The user of a live token, without spending it; null otherwise. */
export async function findSingleUseTokenUser(db: Queryable, table: SingleUseTokenTable, tokenHash: Buffer): Promise<number | null> {
  const { rows } = await db.query<{ user_id: number | string }>(`SELECT user_id FROM ${table} WHERE token_hash = $1 AND ${LIVE}`, [
    tokenHash,
  ]);
  return rows[0] ? Number(rows[0].user_id) : null;
}

/** Spends every outstanding token of the user in the table. */
export async function spendUserTokens(db: Queryable, table: SingleUseTokenTable, userId: number): Promise<void> {
  await db.query(`UPDATE ${table} SET used_at = now() WHERE user_id = $1 AND used_at IS NULL`, [userId]);
}
