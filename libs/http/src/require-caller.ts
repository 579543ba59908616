import { ROLE } from '@acs/contracts';
import { insufficientUserError } from '@acs/errors';
import type { AppContext } from './types.js';

/** A caller the gateway vouched for as a signed-in user, with their effective role at this request. */
export interface UserCaller {
  userId: number;
  role: number;
}

/**
 * The signed-in user of a route, or the spec's 403 "A valid user JWT with sufficient role is
 * required". The gateway already enforced the route's role; services check it again so a route
 * declared wrongly at the gateway, or any other holder of the internal secret, can never reach
 * a user's data without a user of the right role.
 */
export function requireCaller(ctx: AppContext, { minRole = ROLE.free }: { minRole?: number } = {}): UserCaller {
  const userId = ctx.state.caller?.userId;
  const role = ctx.state.caller?.role;
  if (userId === undefined || !Number.isSafeInteger(userId) || userId <= 0) throw insufficientUserError('token_required');
  if (role === undefined || role < minRole)
    throw insufficientUserError(minRole === ROLE.subscriber ? 'subscription_required' : 'role_too_low');
  return { userId, role };
}
