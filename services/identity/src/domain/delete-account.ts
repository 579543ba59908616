import { insufficientUserError } from '@acs/errors';
import { eraseUserFromAudit } from '@acs/audit';
import { findUserById } from '../data-access/users-repository.js';
import { eraseAccount } from '../data-access/account-erasure-repository.js';
import { endSessions, lockUserForSessions, refreshEndedSessions } from '../data-access/sessions-repository.js';
import { IDENTITY_AUDIT, recordAccountChange } from './account-audit.js';
import { wrongCurrentPassword } from './change-password.js';
import type { IdentityDeps } from './deps.js';
import { recordUserDeleted } from './identity-outbox.js';
import { beginLoginAttempt } from './login-throttle.js';
import { assertCurrentCode } from './two-factor.js';
import { changeWithWriteThrough } from './write-through.js';

export interface DeleteAccountInput {
  password: string;
  code?: string | undefined;
}

/**
 * The signed-in user deletes their account (issue 32 item 5). Re-authentication first, under the
 * sign-in limits: the current password, and the current code when two-factor sign-in is on; a
 * refusal changes nothing. Then one transaction: every session ends, the personal data is erased
 * (eraseAccount), the trail keeps its entries without personal data (libs/audit erasure) and
 * `user.deleted.v1` joins the outbox; the authorization record (disabled, every session ended) is
 * written through before the commit, so every gateway replica refuses the user's tokens on their
 * next request. Billing, keys and device act on the event.
 */
export async function deleteAccount(
  deps: IdentityDeps,
  caller: { userId: number; clientIp: string | undefined },
  input: DeleteAccountInput,
): Promise<{ deleted: true; endedSessions: number }> {
  const user = await findUserById(deps.db, caller.userId);
  if (!user || user.deletedAt !== null) throw insufficientUserError('token_required');
  const attempt = await beginLoginAttempt(deps, user.email, caller.clientIp);
  if (!(await deps.passwords.verify(input.password, user.passwordHash))) {
    deps.logger.info({ audit: 'user.deletion_refused', userId: user.id, reason: 'wrong_password' }, 'account deletion refused');
    throw wrongCurrentPassword();
  }
  await assertCurrentCode(deps, user.id, input.code);
  await attempt.succeeded();
  let endedSessions = 0;
  await changeWithWriteThrough(deps, async (tx) => {
    if (!(await lockUserForSessions(tx, user.id))) return null;
    const before = await findUserById(tx, user.id);
    endedSessions = (await endSessions(tx, user.id, { except: null })).length;
    await eraseAccount(tx, user.id);
    const after = await refreshEndedSessions(tx, user.id);
    if (!before || !after) return null;
    await recordAccountChange(tx, deps.actor, 'account.deleted', before, after);
    // After the deletion's own entry, so that one keeps no personal data either.
    await eraseUserFromAudit(tx, IDENTITY_AUDIT, user.id, deps.actor);
    await recordUserDeleted(tx, user.id);
    return after;
  });
  deps.onOutboxWrite?.();
  deps.logger.info({ audit: 'user.deleted', userId: user.id, endedSessions }, 'account deleted');
  return { deleted: true, endedSessions };
}
