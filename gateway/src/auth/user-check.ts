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
