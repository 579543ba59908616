import { applyLimits } from './apply-limits.js';
import { authenticateKey } from './authenticate-key.js';
import { authorizeRoute } from './authorize-route.js';
import { authorizeUser } from './authorize-user.js';
import type { ApiExchange, Outcome, PipelineDeps, Step } from './exchange.js';
import { forwardSigned } from './forward-signed.js';
import { claimIdempotency } from '../idempotency/claim-idempotency.js';
import { readRecords } from './read-records.js';

/**
 * The /api pipeline in the spec's order: read the records (one Redis round trip, which also counts a
 * limited key that will pass), authenticate the key (401), authorize the route (404/405, scope 403),
 * authorize the user (JWT and current effective role, 403), apply the limits (429), claim
 * the Idempotency-Key of a POST or PATCH that has one (a replay, 409, 422), forward signed. A
 * caller without a valid key never makes the gateway verify a token. Steps answer synchronously when they
 * can: an await costs a turn of the event loop, so only a step that returned a promise is awaited.
 */
const STEPS: readonly ((ex: ApiExchange, deps: PipelineDeps) => Step | Promise<Step>)[] = [
  readRecords,
  authenticateKey,
  authorizeRoute,
  authorizeUser,
  applyLimits,
  claimIdempotency,
];

export async function runApi(ex: ApiExchange, deps: PipelineDeps): Promise<Outcome> {
  for (const step of STEPS) {
    const pending = step(ex, deps);
    const outcome = pending instanceof Promise ? await pending : pending;
    if (outcome !== undefined) return outcome;
  }
  return forwardSigned(ex, deps);
}
