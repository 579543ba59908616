import { effectiveRole, type AuthzRecord } from '@acs/contracts';
import type { UserRefusal } from '@acs/errors';

/**
 * Why a user may not call a route of `minRole`, or null when they may: no record or a disabled account
 * (token_required: the token names nobody who can act), a role of 0 because no subscription or trial is
 * active (subscription_required: that is what raises it), or a role below the route's (role_too_low).
 */
export function userRefusal(authz: AuthzRecord | null, minRole: number, nowSeconds: number): UserRefusal | null {
  if (!authz || authz.disabled) return 'token_required';
  const role = effectiveRole(authz, nowSeconds);
  if (role >= minRole) return null;
  return role === 0 ? 'subscription_required' : 'role_too_low';
}

/**
 * Whether the token's session was ended (issue 32): identity lists the ended sessions whose tokens may
 * still be unexpired in the record this request read anyway, so this is an array scan of a few short
 * strings, no round trip. A token without a session (issued before sessions) has none to end.
 */
export function sessionEnded(authz: AuthzRecord, sessionId: string | undefined): boolean {
  const ended = authz.endedSessions;
  return ended !== undefined && sessionId !== undefined && ended.includes(sessionId);
}
