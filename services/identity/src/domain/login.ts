import { AppError } from '@acs/errors';
import type { LoginResponse } from '@acs/contracts';
import { findUserByEmail } from '../data-access/users-repository.js';
import { accessAt, nowSeconds } from './user.js';
import type { IdentityDeps } from './deps.js';
import { addressBucket } from './client-address.js';
import { LoginThrottledError, beginLoginAttempt, type LoginAttempt } from './login-throttle.js';
import { issueToken } from './tokens.js';
import { openSession } from './sessions.js';

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
): Promise<LoginResponse> {
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
  await attempt.succeeded();

  const now = nowSeconds();
  const { role, onTrial } = accessAt(user, now);
  // Every sign-in is a session (issue 32), living as long as its token.
  const sessionId = await openSession(deps, user.id, { userAgent, clientIp }, now + deps.settings.jwtTtlSeconds);
  const { token, expiresAt } = await issueToken(deps, user, now, sessionId);
  deps.logger.info({ audit: 'user.logged_in', userId: user.id, role, sessionId }, 'user logged in');
  return {
    token,
    expiresAt: new Date(expiresAt * 1000).toISOString(),
    user: { id: user.id, email: user.email, role, isTrialSubscription: onTrial },
  };
}
