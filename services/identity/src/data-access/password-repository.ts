import type { Queryable } from '@acs/db';

/** Replaces the user's password hash (the caller ends sessions and writes the record through). */
export async function updatePasswordHash(db: Queryable, userId: number, passwordHash: string): Promise<void> {
  await db.query('UPDATE users SET password_hash = $2, updated_at = now() WHERE id = $1', [userId, passwordHash]);
}

export async function insertPasswordReset(db: Queryable, tokenHash: Buffer, userId: number, expiresAt: Date): Promise<void> {
  // The user's spent and expired tokens go with each new one.
  await db.query('DELETE FROM password_resets WHERE user_id = $1 AND (used_at IS NOT NULL OR expires_at < now())', [userId]);
  await db.query('INSERT INTO password_resets (token_hash, user_id, expires_at) VALUES ($1, $2, $3)', [tokenHash, userId, expiresAt]);
}

/**
 * Spends a token: marks it used and returns its user, or null when it is unknown, used or expired.
 * One UPDATE, so two concurrent uses of one token cannot both succeed.
 */
export async function spendPasswordReset(db: Queryable, tokenHash: Buffer): Promise<number | null> {
  const { rows } = await db.query<{ user_id: number | string }>(
    'UPDATE password_resets SET used_at = now() WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now() RETURNING user_id',
    [tokenHash],
  );
  return rows[0] ? Number(rows[0].user_id) : null;
}

/** After a reset, the user's other outstanding tokens are spent too: one link in a stolen mailbox must not outlive the reset. */
export async function spendOtherPasswordResets(db: Queryable, userId: number): Promise<void> {
  await db.query('UPDATE password_resets SET used_at = now() WHERE user_id = $1 AND used_at IS NULL', [userId]);
}

/** The user of a live (unused, unexpired) token, without spending it; null otherwise. */
export async function findPasswordResetUser(db: Queryable, tokenHash: Buffer): Promise<number | null> {
  const { rows } = await db.query<{ user_id: number | string }>(
    'SELECT user_id FROM password_resets WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now()',
    [tokenHash],
  );
  return rows[0] ? Number(rows[0].user_id) : null;
}
