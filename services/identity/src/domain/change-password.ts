import { AppError, insufficientUserError } from '@acs/errors';
import { findUserById } from '../data-access/users-repository.js';
import { updatePasswordHash } from '../data-access/password-repository.js';
import type { IdentityDeps } from './deps.js';
import { assertPasswordPolicy } from './password-policy.js';
import { beginLoginAttempt } from './login-throttle.js';
import { endSessionsWithWriteThrough } from './sessions.js';

/** A re-authentication (a password change, an account deletion) with the wrong current password. */
export const wrongCurrentPassword = (): AppError =>
  new AppError('unauthorized', 'Invalid credentials', 'The current password is incorrect', {
    code: 'invalid_login',
    hint: 'Type the password you sign in with now; repeated failures are slowed down (429 with Retry-After).',
  });

export interface ChangePasswordInput {
  currentPassword: string;
  newPassword: string;
}

/**
 * A signed-in user changes their password: the current one is checked under the sign-in limits (a
 * stolen token must not become a way to guess it), the new one against the policy, and every other
 * session is ended in the same transaction as the new hash (the calling one stays).
 */
export async function changePassword(
  deps: IdentityDeps,
  caller: { userId: number; sessionId: string | undefined; clientIp: string | undefined },
  input: ChangePasswordInput,
): Promise<{ endedSessions: number }> {
  const user = await findUserById(deps.db, caller.userId);
  if (!user) throw insufficientUserError('token_required');
  const attempt = await beginLoginAttempt(deps, user.email, caller.clientIp);
  if (!(await deps.passwords.verify(input.currentPassword, user.passwordHash))) {
    deps.logger.info({ audit: 'user.password_change_refused', userId: user.id, reason: 'wrong_password' }, 'password change refused');
    throw wrongCurrentPassword();
  }
  await attempt.succeeded();
  assertPasswordPolicy(input.newPassword, user.email, 'body.newPassword');
  const passwordHash = await deps.passwords.hash(input.newPassword);
  const endedSessions = await endSessionsWithWriteThrough(deps, user.id, { except: caller.sessionId ?? null }, 'password_changed', (tx) =>
    updatePasswordHash(tx, user.id, passwordHash),
  );
  deps.logger.info({ audit: 'user.password_changed', userId: user.id, endedSessions }, 'password changed');
  return { endedSessions };
}
