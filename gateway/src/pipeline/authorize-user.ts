import { currentPlanType, effectiveRole } from '@acs/contracts';
import { insufficientUserError, sessionEndedError } from '@acs/errors';
import type { VerifiedToken } from '../auth/token-verifier.js';
import { sessionEnded, userRefusal } from '../auth/user-check.js';
import { notDeployed } from '../proxy/upstream-errors.js';
import type { ApiExchange, PipelineDeps, Step } from './exchange.js';
import { answer, giveBack, refuse } from './refuse.js';

/**
 * Step 4, on user routes: the token verified (only now that the key passed; a token seen before is
 * answered without an await), the user enabled and of the route's current effective role (403, with a
 * code saying whether a token, a higher role or a subscription is what is missing).
 */
export function authorizeUser(ex: ApiExchange, deps: PipelineDeps): Step | Promise<Step> {
  const user = ex.route!.user;
  if (user.kind !== 'user') return undefined;
  if (!ex.token) return refuse(ex, deps, 'user', insufficientUserError('token_required'));
  if (!deps.tokens) {
    deps.metrics.upstreamFailed('identity', 503);
    giveBack(ex, deps);
    return answer(ex, notDeployed('identity'));
  }
  if (ex.remembered !== undefined && ex.authz !== undefined) return admitUser(ex, deps, user.minRole, ex.remembered);
  return verifyThenAdmit(ex, deps, ex.token, user.minRole);
}

/** A token not seen before, or a user record the cache did not have (identity answers it): the awaited path. */
async function verifyThenAdmit(ex: ApiExchange, deps: PipelineDeps, token: string, minRole: number): Promise<Step> {
  try {
    const verified = ex.remembered !== undefined ? ex.remembered : await deps.tokens!.verify(token);
    if (ex.authz === undefined) {
      ex.authz =
        verified && verified.userId === ex.claimedUserId ? await deps.records.lookupAuthzRecord(verified.userId, ex.requestId) : null;
    }
    return admitUser(ex, deps, minRole, verified);
  } catch (err) {
    giveBack(ex, deps);
    throw err;
  }
}

function admitUser(ex: ApiExchange, deps: PipelineDeps, minRole: number, verified: VerifiedToken | null): Step {
  const { authz, context } = ex;
  // The authorization record was read for the claimed user: it must be the verified one.
  if (!verified || verified.userId !== ex.claimedUserId) return refuse(ex, deps, 'user', insufficientUserError('token_required'));
  const now = Math.floor(Date.now() / 1000);
  // An ended session is no signed-in user at all: 401 before any question of role.
  if (authz && sessionEnded(authz, verified.sessionId)) return refuse(ex, deps, 'user', sessionEndedError());
  const refusal = userRefusal(authz ?? null, minRole, now);
  if (refusal !== null || !authz || !context) return refuse(ex, deps, 'user', insufficientUserError(refusal ?? 'token_required'));
  context.userId = authz.userId;
  // Identity marks the caller's own session (GET /api/Sessions); other services ignore it.
  if (verified.sessionId !== undefined) {
    context.sessionId = verified.sessionId;
    deps.sessionsSeen?.seen(authz.userId, verified.sessionId, ex.requestId);
  }
  // The keys service refuses key creation to unverified addresses where the operator requires it.
  if (authz.emailUnverified === true) context.emailUnverified = true;
  context.role = effectiveRole(authz, now);
  context.planType = currentPlanType(authz, now);
  return undefined;
}
