import type { Queryable } from '@acs/db';

/** Replaces the user's password hash (the caller ends sessions and writes the record through). */
export async function updatePasswordHash(db: Queryable, userId: number, passwordHash: string): Promise<void> {
  await db.query('UPDATE users SET password_hash = $2, updated_at = now() WHERE id = $1', [userId, passwordHash]);
}
