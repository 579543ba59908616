import { badRequest } from '@acs/errors';
import { findUserByEmail, findUserById } from '../data-access/users-repository.js';
import { updatePasswordHash } from '../data-access/password-repository.js';
import { findSingleUseTokenUser, spendSingleUseToken, spendUserTokens } from '../data-access/single-use-token-repository.js';
import type { IdentityDeps } from './deps.js';
import { assertPasswordPolicy } from './password-policy.js';
import { beginLoginAttempt } from './login-throttle.js';
import { endSessionsWithWriteThrough } from './sessions.js';
import { hashMailedToken, issueMailedToken } from './mailed-token.js';

const RESET_TOKEN_SECONDS = 15 * 60;

const RESET_REQUESTED_MESSAGE =
  'If an account has this e-mail address, a link to reset its password is on its way. The link is valid for 15 minutes.';

/**
 * Counted like a failed sign-in for the (e-mail, address) pair, the address and the account (login-throttle.ts),
 * so resets are limited like guesses and a flood of mails to one inbox stops at the same numbers. The answer does
 * not wait for the lookup, the token or the mail (they run after it), so it is the same, in the same time,
 * whether or not the address has an account.
 */
export async function requestPasswordReset(deps: IdentityDeps, email: string, clientIp: string | undefined): Promise<{ message: string }> {
  await beginLoginAttempt(deps, email, clientIp);
  void sendResetLink(deps, email).catch((err: unknown) => deps.logger.error({ err }, 'could not send a password reset link'));
  return { message: RESET_REQUESTED_MESSAGE };
}

async function sendResetLink(deps: IdentityDeps, email: string): Promise<void> {
  const user = await findUserByEmail(deps.db, email);
  if (!user) {
    deps.logger.info({ audit: 'user.password_reset_requested', known: false }, 'password reset requested for an unknown address');
    return;
  }
  const token = await issueMailedToken(deps.db, 'password_resets', user.id, RESET_TOKEN_SECONDS);
  const link = `${deps.settings.dashboardUrl}/reset-password?token=${token}`;
  await deps.mailer.send({
    to: user.email,
    subject: 'Reset your password',
    text:
      `Someone (we hope you) asked to reset the password of the account ${user.email}.\n\n` +
      `Choose a new password here within 15 minutes:\n${link}\n\n` +
      'The link works once. If you did not ask for it, ignore this mail: your password stays as it is.\n',
  });
  deps.logger.info({ audit: 'user.password_reset_requested', known: true, userId: user.id }, 'password reset link sent');
}

const invalidResetToken = () =>
  badRequest('The reset link is unknown, already used or expired. Ask for a new one.', undefined, 'invalid_reset_token');

/**
 * Sets the new password with a reset token: the token is spent in the same transaction (one UPDATE, so two
 * uses cannot both win), the user's other reset tokens with it, and every session ends (whoever held
 * the account before the reset is signed out).
 */
export async function completePasswordReset(deps: IdentityDeps, token: string, newPassword: string): Promise<{ endedSessions: number }> {
  const tokenHash = hashMailedToken(token);
  // Read without spending it first, so a new password the policy refuses leaves the link usable.
  const userId = await findSingleUseTokenUser(deps.db, 'password_resets', tokenHash);
  const user = userId === null ? null : await findUserById(deps.db, userId);
  if (!user) throw invalidResetToken();
  assertPasswordPolicy(newPassword, user.email, 'body.newPassword');
  const passwordHash = await deps.passwords.hash(newPassword);
  const endedSessions = await endSessionsWithWriteThrough(deps, user.id, { except: null }, 'password_reset', async (tx) => {
    if ((await spendSingleUseToken(tx, 'password_resets', tokenHash)) !== user.id) throw invalidResetToken();
    // One link in a stolen mailbox must not outlive the reset: the user's other tokens are spent too.
    await spendUserTokens(tx, 'password_resets', user.id);
    await updatePasswordHash(tx, user.id, passwordHash);
  });
  deps.logger.info({ audit: 'user.password_reset', userId: user.id, endedSessions }, 'password reset');
  return { endedSessions };
}
