import type { LoginResponse } from '@acs/contracts';
import type { IdentityDeps } from './deps.js';
import { openSession } from './sessions.js';
import { issueToken } from './tokens.js';
import { accessAt, nowSeconds, type User } from './user.js';

/** Where a sign-in comes from: the session's device label and address. */
export interface SignInOrigin {
  userAgent: string | undefined;
  clientIp: string | undefined;
}

/** The end of every sign-in (one step, or the second factor): a session (issue 32), its token, the spec's answer. */
export async function signInAs(deps: IdentityDeps, user: User, from: SignInOrigin): Promise<LoginResponse> {
  const now = nowSeconds();
  const { role, onTrial } = accessAt(user, now);
  const sessionId = await openSession(deps, user.id, from, now + deps.settings.jwtTtlSeconds);
  const { token, expiresAt } = await issueToken(deps, user, now, sessionId);
  deps.logger.info({ audit: 'user.logged_in', userId: user.id, role, sessionId }, 'user logged in');
  return {
    token,
    expiresAt: new Date(expiresAt * 1000).toISOString(),
    user: { id: user.id, email: user.email, role, isTrialSubscription: onTrial },
  };
}
