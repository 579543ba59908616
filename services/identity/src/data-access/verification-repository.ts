import type { Queryable } from '@acs/db';

export async function insertEmailVerification(db: Queryable, tokenHash: Buffer, userId: number, expiresAt: Date): Promise<void> {
  await db.query('DELETE FROM email_verifications WHERE user_id = $1 AND (used_at IS NOT NULL OR expires_at < now())', [userId]);
  await db.query('INSERT INTO email_verifications (token_hash, user_id, expires_at) VALUES ($1, $2, $3)', [tokenHash, userId, expiresAt]);
}

/** Links sent to the user within the last `seconds` (the resend limit). */
export async function countRecentVerifications(db: Queryable, userId: number, seconds: number): Promise<number> {
  const { rows } = await db.query<{ n: string | number }>(
    'SELECT count(*) AS n FROM email_verifications WHERE user_id = $1 AND created_at > now() - make_interval(secs => $2)',
    [userId, seconds],
  );
  return Number(rows[0]?.n ?? 0);
}

/** Spends a live token (one UPDATE: two uses cannot both win); its user, or null. */
export async function spendEmailVerification(db: Queryable, tokenHash: Buffer): Promise<number | null> {
  const { rows } = await db.query<{ user_id: number | string }>(
    'UPDATE email_verifications SET used_at = now() WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now() RETURNING user_id',
    [tokenHash],
  );
  return rows[0] ? Number(rows[0].user_id) : null;
}

/** Marks the address verified (kept from the first time) and bumps the version for the write-through. */
export async function markEmailVerified(db: Queryable, userId: number): Promise<void> {
  await db.query(
    'UPDATE users SET email_verified_at = COALESCE(email_verified_at, now()), version = version + 1, updated_at = now() WHERE id = $1',
    [userId],
  );
}
