import { insufficientUserError } from '@acs/errors';
import { findUserById } from '../data-access/users-repository.js';
import { deleteTwoFactor, findTwoFactor, replaceRecoveryCodes } from '../data-access/two-factor-repository.js';
import { wrongCurrentPassword } from './change-password.js';
import type { IdentityDeps } from './deps.js';
import { beginLoginAttempt } from './login-throttle.js';
import { assertCurrentCode, hashRecoveryCode, newRecoveryCodes, twoFactorOff } from './two-factor.js';
import type { User } from './user.js';

/** The signed-in user, with two-factor sign-in on (409 two_factor_disabled otherwise). */
async function userWithTwoFactor(deps: IdentityDeps, userId: number): Promise<User> {
  const user = await findUserById(deps.db, userId);
  if (!user || user.deletedAt !== null) throw insufficientUserError('token_required');
  if (!(await findTwoFactor(deps.db, userId))?.confirmed) throw twoFactorOff();
  return user;
}

/**
 * Turns two-factor sign-in off: the password and a current code, both under the sign-in limits (a
 * stolen session alone cannot weaken the account, and cannot guess either). The code is spent.
 */
export async function disableTwoFactor(
  deps: IdentityDeps,
  caller: { userId: number; clientIp: string | undefined },
  input: { password: string; code: string },
): Promise<{ twoFactorEnabled: false }> {
  const user = await userWithTwoFactor(deps, caller.userId);
  const attempt = await beginLoginAttempt(deps, user.email, caller.clientIp);
  if (!(await deps.passwords.verify(input.password, user.passwordHash))) throw wrongCurrentPassword();
  await assertCurrentCode(deps, user.id, input.code);
  await attempt.succeeded();
  await deps.db.transaction((tx) => deleteTwoFactor(tx, user.id));
  deps.logger.info({ audit: 'user.two_factor_off', userId: user.id }, 'two-factor sign-in turned off');
  return { twoFactorEnabled: false };
}

/** New recovery codes for a current code (spent); every earlier one stops working. Shown this once. */
export async function regenerateRecoveryCodes(
  deps: IdentityDeps,
  caller: { userId: number; clientIp: string | undefined },
  code: string,
): Promise<{ recoveryCodes: string[] }> {
  const user = await userWithTwoFactor(deps, caller.userId);
  const attempt = await beginLoginAttempt(deps, user.email, caller.clientIp);
  await assertCurrentCode(deps, user.id, code);
  await attempt.succeeded();
  const recoveryCodes = newRecoveryCodes();
  await deps.db.transaction((tx) => replaceRecoveryCodes(tx, user.id, recoveryCodes.map(hashRecoveryCode)));
  deps.logger.info({ audit: 'user.recovery_codes_replaced', userId: user.id }, 'recovery codes replaced');
  return { recoveryCodes };
}
