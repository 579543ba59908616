import { randomBytes } from 'node:crypto';
import { AppError, conflict, insufficientUserError } from '@acs/errors';
import type { LoginChallenge, LoginResponse } from '@acs/contracts';
import { findUserById } from '../data-access/users-repository.js';
import {
  attemptChallenge,
  findTwoFactor,
  insertChallenge,
  replaceRecoveryCodes,
  saveUnconfirmedSecret,
  spendChallenge,
  spendRecoveryCode,
  useStep,
} from '../data-access/two-factor-repository.js';
import type { IdentityDeps } from './deps.js';
import { deviceLabel } from './device-label.js';
import { beginLoginAttempt } from './login-throttle.js';
import { hashMailedToken, newMailedToken } from './mailed-token.js';
import { signInAs, type SignInOrigin } from './sign-in.js';
import { openSecret, sealSecret } from './totp-secret-box.js';
import { matchingStep, otpauthUri, base32Encode } from './totp.js';
import type { User } from './user.js';

const ISSUER = 'Audio Catalog';
const CHALLENGE_SECONDS = 5 * 60;
const CHALLENGE_ATTEMPTS = 5;
const RECOVERY_CODES = 10;

const nowSeconds = (): number => Date.now() / 1000;
/** Recovery codes are compared case-insensitively and without the dash people may or may not type. */
const normalizeRecoveryCode = (code: string): string => code.replace(/[\s-]/g, '').toLowerCase();
export const hashRecoveryCode = (code: string): Buffer => hashMailedToken(normalizeRecoveryCode(code));

/** Managing two-factor sign-in (turning it off, new recovery codes) when it is not on. */
export const twoFactorOff = () => conflict('Two-factor sign-in is off for this account', { code: 'two_factor_disabled' });
const alreadyOn = () => conflict('Two-factor sign-in is already on for this account', { code: 'two_factor_enabled' });
const wrongCode = (status: 'bad_request' | 'unauthorized') =>
  new AppError(status, 'Invalid code', 'The code is wrong, already used, or the sign-in attempt has expired', {
    code: 'invalid_two_factor_code',
    hint: 'Type the current 6 digits of your authenticator app (or an unused recovery code); after 5 tries sign in again.',
  });

/** A new secret for the authenticator app; sign-in does not change until it is confirmed. */
export async function enrollTwoFactor(deps: IdentityDeps, userId: number): Promise<{ secret: string; otpauthUri: string }> {
  const user = await findUserById(deps.db, userId);
  if (!user) throw insufficientUserError('token_required');
  const secret = randomBytes(20);
  if (!(await saveUnconfirmedSecret(deps.db, userId, sealSecret(deps.totpKey, userId, secret)))) throw alreadyOn();
  deps.logger.info({ audit: 'user.two_factor_enrolled', userId }, 'two-factor secret issued (unconfirmed)');
  return { secret: base32Encode(secret), otpauthUri: otpauthUri(secret, user.email, ISSUER) };
}

/** 10 codes of 10 base32 characters (50 bits each), written 5-5; only their hashes are kept. */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODES }, () => {
    const code = base32Encode(randomBytes(7)).slice(0, 10).toLowerCase();
    return `${code.slice(0, 5)}-${code.slice(5)}`;
  });
}

/** A first code proves the app has the secret: two-factor turns on and the recovery codes are shown, once. */
export async function confirmTwoFactor(deps: IdentityDeps, userId: number, code: string): Promise<{ recoveryCodes: string[] }> {
  const row = await findTwoFactor(deps.db, userId);
  if (row?.confirmed) throw alreadyOn();
  const step = row ? matchingStep(openSecret(deps.totpKey, userId, row.secret), code, nowSeconds()) : null;
  if (!row || step === null) throw wrongCode('bad_request');
  const recoveryCodes = newRecoveryCodes();
  const confirmed = await deps.db.transaction(async (tx) => {
    if (!(await useStep(tx, userId, step, true))) return false;
    await replaceRecoveryCodes(tx, userId, recoveryCodes.map(hashRecoveryCode));
    return true;
  });
  if (!confirmed) throw wrongCode('bad_request');
  deps.logger.info({ audit: 'user.two_factor_on', userId }, 'two-factor sign-in turned on');
  return { recoveryCodes };
}

/** After a correct password: null for accounts without two-factor, else the challenge the second call completes. */
export async function twoFactorChallengeFor(deps: IdentityDeps, user: User, from: SignInOrigin): Promise<LoginChallenge | null> {
  const row = await findTwoFactor(deps.db, user.id);
  if (!row?.confirmed) return null;
  const challenge = newMailedToken();
  const expiresAt = new Date(Date.now() + CHALLENGE_SECONDS * 1000);
  const address = from.clientIp && from.clientIp.length <= 64 ? from.clientIp : null;
  await insertChallenge(deps.db, {
    hash: hashMailedToken(challenge),
    userId: user.id,
    expiresAt,
    device: deviceLabel(from.userAgent),
    address,
  });
  deps.logger.info({ audit: 'user.two_factor_challenged', userId: user.id }, 'password correct; second factor asked for');
  return { twoFactorRequired: true, challenge, expiresAt: expiresAt.toISOString() };
}

/** Checks the code (a later time step than any used: no replay) or spends a recovery code. */
async function secondFactorHolds(deps: IdentityDeps, userId: number, input: { code?: string; recoveryCode?: string }): Promise<boolean> {
  if (input.recoveryCode !== undefined) return spendRecoveryCode(deps.db, userId, hashRecoveryCode(input.recoveryCode));
  const row = await findTwoFactor(deps.db, userId);
  const step = row?.confirmed && input.code ? matchingStep(openSecret(deps.totpKey, userId, row.secret), input.code, nowSeconds()) : null;
  return step !== null && useStep(deps.db, userId, step, false);
}

/**
 * Re-authentication for a sensitive change (an account deletion): when two-factor sign-in is on, the
 * current code is required (and spent: it cannot be replayed). 401 invalid_two_factor_code otherwise.
 */
export async function assertCurrentCode(deps: IdentityDeps, userId: number, code: string | undefined): Promise<void> {
  const row = await findTwoFactor(deps.db, userId);
  if (!row?.confirmed) return;
  if (code === undefined || !(await secondFactorHolds(deps, userId, { code }))) throw wrongCode('unauthorized');
}

/**
 * The second call: a live challenge (5 attempts, 5 minutes), then the code under the sign-in limits (a wrong
 * code counts as a failed sign-in for the account and address), then the same answer as a one-step login.
 */
export async function completeTwoFactorLogin(
  deps: IdentityDeps,
  input: { challenge: string; code?: string; recoveryCode?: string },
  from: SignInOrigin,
): Promise<LoginResponse> {
  const hash = hashMailedToken(input.challenge);
  const userId = await attemptChallenge(deps.db, hash, CHALLENGE_ATTEMPTS);
  const user = userId === null ? null : await findUserById(deps.db, userId);
  if (!user) throw wrongCode('unauthorized');
  const attempt = await beginLoginAttempt(deps, user.email, from.clientIp);
  if (!(await secondFactorHolds(deps, user.id, input))) {
    deps.logger.info({ audit: 'user.two_factor_failed', userId: user.id }, 'second factor refused');
    throw wrongCode('unauthorized');
  }
  await attempt.succeeded();
  if (!(await spendChallenge(deps.db, hash))) throw wrongCode('unauthorized');
  if (input.recoveryCode !== undefined) deps.logger.info({ audit: 'user.recovery_code_used', userId: user.id }, 'recovery code used');
  return signInAs(deps, user, from);
}
