import type { Queryable } from '@acs/db';

/** Links sent to the user within the last `seconds` (the resend limit). */
export async function countRecentVerifications(db: Queryable, userId: number, seconds: number): Promise<number> {
  const { rows } = await db.query<{ n: string | number }>(
    'SELECT count(*) AS n FROM email_verifications WHERE user_id = $1 AND created_at > now() - make_interval(secs => $2)',
    [userId, seconds],
  );
  return Number(rows[0]?.n ?? 0);
}

/** Marks the address verified (kept from the first time) and bumps the version for the write-through. */
export async function markEmailVerified(db: Queryable, userId: number): Promise<void> {
  await db.query(
    'UPDATE users SET email_verified_at = COALESCE(email_verified_at, now()), version = version + 1, updated_at = now() WHERE id = $1',
    [userId],
  );
}
