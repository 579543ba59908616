import { AppError } from '@acs/errors';
import type { LoginChallenge, LoginResponse } from '@acs/contracts';
import { findUserByEmail } from '../data-access/users-repository.js';
import type { IdentityDeps } from './deps.js';
import { addressBucket } from './client-address.js';
import { LoginThrottledError, beginLoginAttempt, type LoginAttempt } from './login-throttle.js';
import { signInAs } from './sign-in.js';
import { twoFactorChallengeFor } from './two-factor.js';

/** One answer for an unknown e-mail and a wrong password: the body tells an attacker nothing. */
export const INVALID_CREDENTIALS = {
  error: 'Invalid credentials',
  message: 'The e-mail or password is incorrect',
  code: 'invalid_login',
  hint: 'Check the e-mail and password; repeated failures are slowed down (429 with Retry-After).',
} as const;
const invalidCredentials = (): AppError =>
  new AppError('unauthorized', INVALID_CREDENTIALS.error, INVALID_CREDENTIALS.message, {
    code: INVALID_CREDENTIALS.code,
    hint: INVALID_CREDENTIALS.hint,
  });

export interface LoginInput {
  email: string;
  password: string;
}

/**
 * The attempt is counted and checked against the sign-in limits first (login-throttle.ts), before
 * any bcrypt work; then the password check: an unknown e-mail is compared with a dummy hash of the
 * same cost, so both failures take one bcrypt comparison. A success clears the (account, address)
 * count and remembers the address for the account.
 */
export async function login(
  deps: IdentityDeps,
  input: LoginInput,
  clientIp: string | undefined,
  userAgent?: string,
): Promise<LoginResponse | LoginChallenge> {
  let attempt: LoginAttempt;
  try {
    attempt = await beginLoginAttempt(deps, input.email, clientIp);
  } catch (err) {
    if (err instanceof LoginThrottledError) {
      deps.metrics.loginThrottled(err.limit);
      deps.logger.warn(
        { audit: 'user.login_throttled', limit: err.limit, address: addressBucket(clientIp), retryAfterSeconds: err.retryAfterSeconds },
        'login throttled',
      );
    }
    throw err;
  }
  const user = await findUserByEmail(deps.db, input.email);
  const matches = await deps.passwords.verify(input.password, user?.passwordHash ?? deps.passwords.dummyHash);
  if (!user || !matches) {
    deps.logger.info(
      { audit: 'user.login_failed', userId: user?.id, reason: user ? 'wrong_password' : 'unknown_email', address: addressBucket(clientIp) },
      'login failed',
    );
    throw invalidCredentials();
  }
  // Two-factor accounts get a challenge instead of a token (issue 32); every other account the spec's answer.
  // The password alone does not clear the count for a two-factor account: it stays a failure until the
  // second factor holds, so signing in again with a stolen password buys no fresh code guesses.
  const challenge = await twoFactorChallengeFor(deps, user, { userAgent, clientIp });
  if (challenge) return challenge;
  await attempt.succeeded();
  return signInAs(deps, user, { userAgent, clientIp });
}
