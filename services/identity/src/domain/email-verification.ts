import { AppError, badRequest, insufficientUserError } from '@acs/errors';
import type { AccountView } from '@acs/contracts';
import { findTwoFactor } from '../data-access/two-factor-repository.js';
import { findUserById } from '../data-access/users-repository.js';
import { countRecentVerifications, markEmailVerified } from '../data-access/verification-repository.js';
import { spendSingleUseToken } from '../data-access/single-use-token-repository.js';
import type { IdentityDeps, UserStore } from './deps.js';
import { profileOf, type User } from './user.js';
import { changeWithWriteThrough } from './write-through.js';
import { hashMailedToken, issueMailedToken } from './mailed-token.js';

const VERIFICATION_SECONDS = 7 * 24 * 3600;
const RESEND_WINDOW_SECONDS = 3600;
const MAX_LINKS_PER_WINDOW = 5;

const VERIFICATION_SENT = 'A link to verify your e-mail address is on its way. It is valid for 7 days.';
const ALREADY_VERIFIED = 'Your e-mail address is already verified.';

/** Sends the link (registration, or the owner asking again); the token is stored hashed, valid 7 days, once. */
async function sendVerificationLink(deps: IdentityDeps, user: User): Promise<void> {
  const token = await issueMailedToken(deps.db, 'email_verifications', user.id, VERIFICATION_SECONDS);
  await deps.mailer.send({
    to: user.email,
    subject: 'Verify your e-mail address',
    text:
      `Please confirm that ${user.email} is your address by opening this link within 7 days:\n` +
      `${deps.settings.dashboardUrl}/verify-email?token=${token}\n\n` +
      'If you did not create an account, ignore this mail.\n',
  });
  deps.logger.info({ audit: 'user.verification_sent', userId: user.id }, 'e-mail verification link sent');
}

/** After registration: the answer does not wait for the mail; a failure is logged (the owner can ask again). */
export function sendVerificationLinkLater(deps: IdentityDeps, user: User): void {
  void sendVerificationLink(deps, user).catch((err: unknown) =>
    deps.logger.error({ err, userId: user.id }, 'could not send the verification link'),
  );
}

/** The owner asks again: at most 5 links an hour (429), none when already verified. */
export async function resendVerification(deps: IdentityDeps, userId: number): Promise<{ message: string }> {
  const user = await findUserById(deps.db, userId);
  if (!user) throw insufficientUserError('token_required');
  if (user.emailVerifiedAt !== null) return { message: ALREADY_VERIFIED };
  if ((await countRecentVerifications(deps.db, userId, RESEND_WINDOW_SECONDS)) >= MAX_LINKS_PER_WINDOW)
    throw new AppError('too_many_requests', 'Too many requests', 'Too many verification links were asked for. Try again later.', {
      headers: { 'Retry-After': String(RESEND_WINDOW_SECONDS) },
      code: 'verification_throttled',
      hint: 'Use the newest link already sent, or wait an hour.',
    });
  await sendVerificationLink(deps, user);
  return { message: VERIFICATION_SENT };
}

/** Spends the token and marks the address verified, written through to the authorization record (keys read it). */
export async function verifyEmail(deps: UserStore, token: string): Promise<{ email: string; emailVerifiedAt: string }> {
  const user = await changeWithWriteThrough(deps, async (tx) => {
    const userId = await spendSingleUseToken(tx, 'email_verifications', hashMailedToken(token));
    if (userId === null) return null;
    await markEmailVerified(tx, userId);
    return findUserById(tx, userId);
  });
  if (!user?.emailVerifiedAt)
    throw badRequest(
      'The verification link is unknown, already used or expired. Ask for a new one.',
      undefined,
      'invalid_verification_token',
    );
  deps.logger.info({ audit: 'user.email_verified', userId: user.id }, 'e-mail address verified');
  return { email: user.email, emailVerifiedAt: user.emailVerifiedAt.toISOString() };
}

export async function accountView(deps: UserStore, userId: number): Promise<AccountView> {
  const user = await findUserById(deps.db, userId);
  if (!user) throw insufficientUserError('token_required');
  return {
    ...profileOf(user),
    emailVerified: user.emailVerifiedAt !== null,
    emailVerifiedAt: user.emailVerifiedAt?.toISOString() ?? null,
    twoFactorEnabled: (await findTwoFactor(deps.db, user.id))?.confirmed ?? false,
    createdAt: user.createdAt.toISOString(),
  };
}
