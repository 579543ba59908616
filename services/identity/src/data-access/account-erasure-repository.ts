import type { Queryable } from '@acs/db';

/**
 * Erases what identity holds of a person, in the deletion's transaction (issue 32 item 5). The users
 * row stays as a tombstone (sessions, processed events and the authorization record point at its
 * id): the e-mail becomes `deleted:<id>` (no address, so nobody can register or sign in with it),
 * the names a dash, the password hash a value no password matches; the role drops to Free. The
 * two-factor secret, recovery codes, sign-in challenges and mailed links go; the sessions keep only
 * their ids and times (the ended ones stay refused until their tokens expire); the audit feed (a
 * copy for reading GET /api/AuditLog) of the user goes.
 */
export async function eraseAccount(tx: Queryable, userId: number): Promise<void> {
  await tx.query(
    `UPDATE users SET email = 'deleted:' || id, password_hash = '*', first_name = '-', last_name = '-', account_role = 0,
       trial_ends_at = NULL, subscription_ends_at = NULL, email_verified_at = NULL, deleted_at = now(),
       version = version + 1, updated_at = now()
     WHERE id = $1`,
    [userId],
  );
  for (const table of ['two_factor', 'recovery_codes', 'login_challenges', 'password_resets', 'email_verifications', 'audit_feed'])
    await tx.query(`DELETE FROM ${table} WHERE user_id = $1`, [userId]);
  await tx.query(`UPDATE sessions SET device = '', address = NULL WHERE user_id = $1`, [userId]);
}
