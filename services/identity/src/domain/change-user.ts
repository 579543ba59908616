import { badRequest, notFound } from '@acs/errors';
import { findUserById, updateAccountRole, updateTrialEnd } from '../data-access/users-repository.js';
import { recordAccountChange } from './account-audit.js';
import { roleName } from '@acs/contracts';
import type { User } from './user.js';
import type { UserStore } from './deps.js';
import { changeWithWriteThrough } from './write-through.js';

/** Operators (CLI) change the account role; the gateway applies it on the user's next request. */
export async function setUserRole(deps: UserStore, email: string, role: number): Promise<User> {
  if (!Number.isInteger(role) || role < 0 || role > 3)
    throw badRequest('The role must be 0 (Free), 1 (Subscriber), 2 (Admin) or 3 (SuperAdmin)', undefined, 'invalid_role');
  let previousRole = role;
  const user = await changeWithWriteThrough(deps, async (tx) => {
    const changed = await updateAccountRole(tx, email, role);
    if (!changed) return null;
    previousRole = changed.previousRole;
    await recordAccountChange(tx, deps.actor, 'account.role_changed', { ...changed.user, accountRole: previousRole }, changed.user);
    return changed.user;
  });
  if (!user) throw notFound(`No user with the e-mail address ${email}`, 'user_not_found');
  deps.logger.info(
    { audit: 'user.role_changed', userId: user.id, previousRole, role },
    `account role changed from ${roleName(previousRole)} to ${roleName(role)}`,
  );
  return user;
}

/** Starts, moves or ends (null) a user's trial; a past date ends it at once (tests use this rather than waiting). */
export async function setTrialEnd(deps: UserStore, userId: number, endsAt: Date | null): Promise<User> {
  if (endsAt !== null && Number.isNaN(endsAt.getTime())) throw badRequest('The trial end must be a valid date', undefined, 'invalid_date');
  const user = await changeWithWriteThrough(deps, async (tx) => {
    const before = await findUserById(tx, userId);
    const changed = await updateTrialEnd(tx, userId, endsAt);
    if (changed) await recordAccountChange(tx, deps.actor, 'account.trial_changed', before, changed);
    return changed;
  });
  if (!user) throw notFound(`No user ${userId}`, 'user_not_found');
  deps.logger.info({ audit: 'user.trial_changed', userId, trialEndsAt: endsAt?.toISOString() ?? null }, 'trial end changed');
  return user;
}
