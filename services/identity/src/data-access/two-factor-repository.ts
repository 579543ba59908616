import type { Queryable } from '@acs/db';

export interface TwoFactorRow {
  secret: Buffer;
  confirmed: boolean;
  lastStep: number;
}

export async function findTwoFactor(db: Queryable, userId: number): Promise<TwoFactorRow | null> {
  const { rows } = await db.query<{ secret: Buffer; confirmed_at: Date | null; last_step: string | number }>(
    'SELECT secret, confirmed_at, last_step FROM two_factor WHERE user_id = $1',
    [userId],
  );
  const row = rows[0];
  return row ? { secret: row.secret, confirmed: row.confirmed_at !== null, lastStep: Number(row.last_step) } : null;
}

/** A new, unconfirmed secret (replacing an unconfirmed one); false when two-factor is already on. */
export async function saveUnconfirmedSecret(db: Queryable, userId: number, secret: Buffer): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO two_factor (user_id, secret) VALUES ($1, $2)
     ON CONFLICT (user_id) DO UPDATE SET secret = EXCLUDED.secret, last_step = 0, created_at = now() WHERE two_factor.confirmed_at IS NULL`,
    [userId, secret],
  );
  return rowCount > 0;
}

/**
 * Records `step` as used, only if it is later than the last one used: one UPDATE, so a code (or an earlier
 * one) cannot be used twice, even by two requests at once. `confirm` also turns two-factor on.
 */
export async function useStep(db: Queryable, userId: number, step: number, confirm: boolean): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE two_factor SET last_step = $2${confirm ? ', confirmed_at = now()' : ''}
     WHERE user_id = $1 AND last_step < $2 AND ${confirm ? 'confirmed_at IS NULL' : 'confirmed_at IS NOT NULL'}`,
    [userId, step],
  );
  return rowCount > 0;
}

export async function replaceRecoveryCodes(db: Queryable, userId: number, codeHashes: Buffer[]): Promise<void> {
  await db.query('DELETE FROM recovery_codes WHERE user_id = $1', [userId]);
  for (const hash of codeHashes) await db.query('INSERT INTO recovery_codes (code_hash, user_id) VALUES ($1, $2)', [hash, userId]);
}

export async function spendRecoveryCode(db: Queryable, userId: number, codeHash: Buffer): Promise<boolean> {
  const { rowCount } = await db.query(
    'UPDATE recovery_codes SET used_at = now() WHERE code_hash = $1 AND user_id = $2 AND used_at IS NULL',
    [codeHash, userId],
  );
  return rowCount > 0;
}

export async function insertChallenge(
  db: Queryable,
  input: { hash: Buffer; userId: number; expiresAt: Date; device: string; address: string | null },
): Promise<void> {
  await db.query('DELETE FROM login_challenges WHERE user_id = $1 AND (used_at IS NOT NULL OR expires_at < now())', [input.userId]);
  await db.query('INSERT INTO login_challenges (challenge_hash, user_id, expires_at, device, address) VALUES ($1, $2, $3, $4, $5)', [
    input.hash,
    input.userId,
    input.expiresAt,
    input.device,
    input.address,
  ]);
}

/**
 * Counts one attempt on a live challenge (unused, unexpired, fewer than `maxAttempts` so far) and
 * returns its user, or null: a challenge is good for a few guesses, never for a brute force.
 */
export async function attemptChallenge(db: Queryable, hash: Buffer, maxAttempts: number): Promise<number | null> {
  const { rows } = await db.query<{ user_id: string | number }>(
    `UPDATE login_challenges SET attempts = attempts + 1
     WHERE challenge_hash = $1 AND used_at IS NULL AND expires_at > now() AND attempts < $2 RETURNING user_id`,
    [hash, maxAttempts],
  );
  return rows[0] ? Number(rows[0].user_id) : null;
}

export async function spendChallenge(db: Queryable, hash: Buffer): Promise<boolean> {
  const { rowCount } = await db.query('UPDATE login_challenges SET used_at = now() WHERE challenge_hash = $1 AND used_at IS NULL', [hash]);
  return rowCount > 0;
}

/** Turns two-factor sign-in off: the secret and the recovery codes go (login challenges expire by themselves). */
export async function deleteTwoFactor(db: Queryable, userId: number): Promise<void> {
  await db.query('DELETE FROM recovery_codes WHERE user_id = $1', [userId]);
  await db.query('DELETE FROM two_factor WHERE user_id = $1', [userId]);
}

/** Secrets still stored as plaintext (20 bytes: before encryption at rest), a batch at a time. */
export async function plaintextSecrets(db: Queryable, limit: number): Promise<{ userId: number; secret: Buffer }[]> {
  const { rows } = await db.query<{ user_id: string | number; secret: Buffer }>(
    'SELECT user_id, secret FROM two_factor WHERE length(secret) = 20 ORDER BY user_id LIMIT $1',
    [limit],
  );
  return rows.map((row) => ({ userId: Number(row.user_id), secret: row.secret }));
}

/** Replaces a plaintext secret with its sealed form, only if it is still that plaintext (a re-enrollment in between wins). */
export async function replaceSecret(db: Queryable, userId: number, plaintext: Buffer, sealed: Buffer): Promise<void> {
  await db.query('UPDATE two_factor SET secret = $3 WHERE user_id = $1 AND secret = $2', [userId, plaintext, sealed]);
}
