import { SYSTEM_SCOPE, grantsScope } from '@acs/auth';
import type { AuthzRecord } from '@acs/contracts';
import type { KeyRecord } from '../auth/key-record.js';
import type { RecordsRead } from '../auth/record-reader.js';
import { userRefusal } from '../auth/user-check.js';
import type { QuotaGuess } from '../limits/quota-limiter.js';
import { quotaCountersAt, quotaPlanOf } from '../limits/quota.js';
import { countersAt, type CountGuess } from '../limits/rate-limiter.js';
import { secretCheck } from './authenticate-key.js';
import type { ApiExchange, PipelineDeps } from './exchange.js';

/** What a request counts with its read: the limiter's counters, the owner's quota counters, and whose quota. */
export interface ReadGuess {
  limit: CountGuess | null;
  quota: QuotaGuess | null;
  /** The key's owner (whose plan quota counts its requests), as this replica last saw the key; system keys: none. */
  ownerId: number | undefined;
}

const NOTHING: ReadGuess = { limit: null, quota: null, ownerId: undefined };

/** The user whose quota a key's requests count in: its owner; never for system:full-access keys (never limited either). */
export const quotaOwnerOf = (record: KeyRecord): number | undefined =>
  record.ownerUserId === null || record.scopes.includes(SYSTEM_SCOPE) ? undefined : record.ownerUserId;

/** Whether the request passes every check before the limits, judged on the records this replica read last. */
function passesOnLastSeen(ex: ApiExchange, deps: PipelineDeps, last: KeyRecord, now: number): boolean {
  if (ex.found.kind !== 'found') return false;
  const { route } = ex.found;
  if (!grantsScope(last.scopes, route.scope) || !secretCheck(ex, last)) return false;
  if (route.user.kind !== 'user') return true;
  if (ex.token === null || deps.tokens === null || ex.remembered === null || ex.claimedUserId === undefined) return false;
  const authz = deps.records.lastAuthzRecord(ex.claimedUserId);
  return authz !== undefined && userRefusal(authz, route.user.minRole, Math.floor(now / 1000)) === null;
}

/**
 * The guess (docs/performance.md, "The hot path"): the counters this request moves in its own read, counted
 * only when it will pass every other check judged on the records this replica read last for the key, the user
 * and the key's owner. The read then confirms the records; a request of a key without limits and an owner
 * without a quota counts nothing (the owner's record is still read, so a new quota applies on the next request).
 */
export function guessCounts(ex: ApiExchange, deps: PipelineDeps): ReadGuess {
  if (ex.found.kind !== 'found') return NOTHING;
  const last = deps.records.lastKeyRecord(ex.apiKey);
  if (last === undefined) return NOTHING;
  const ownerId = quotaOwnerOf(last);
  const plan = deps.limiter.planFor(ex.apiKey, last, ex.environment);
  const owner = ownerId === undefined ? undefined : deps.records.lastAuthzRecord(ownerId);
  const quota = owner === undefined ? null : quotaPlanOf(owner);
  const now = Date.now();
  if ((plan === null && quota === null) || !passesOnLastSeen(ex, deps, last, now)) return { limit: null, quota: null, ownerId };
  return {
    limit: plan && { plan, counters: countersAt(plan, now), now },
    quota: quota && { plan: quota, counters: quotaCountersAt(quota, now), now },
    ownerId,
  };
}

/** The owner's record as this request read it: the user's own when the owner is the user; undefined when not read. */
export function ownerRecordOf(ex: ApiExchange, ownerId: number): AuthzRecord | null | undefined {
  return ownerId === ex.claimedUserId ? ex.authz : ex.owner;
}

/** Decides what the read counted, on the records it returned; a guess the records contradict is given back. */
export function settleCounts(ex: ApiExchange, deps: PipelineDeps, guess: ReadGuess, read: RecordsRead): void {
  const record = read.record;
  if (guess.limit !== null && read.counters !== null) {
    const plan = record === null ? null : deps.limiter.planFor(ex.apiKey, record, ex.environment);
    ex.limit = deps.limiter.settle(guess.limit, read.counters, plan);
    if (ex.limit !== null) ex.counted.push({ redis: guess.limit.counters.current });
  }
  if (guess.quota !== null && read.ownerCounts !== null) {
    const sameOwner = record !== null && quotaOwnerOf(record) === guess.ownerId;
    const owner = sameOwner ? ownerRecordOf(ex, guess.ownerId!) : undefined;
    ex.quota = deps.quota.settle(guess.quota, read.ownerCounts, owner ? quotaPlanOf(owner) : null);
    if (ex.quota !== null) ex.counted.push({ redis: guess.quota.counters.names });
  }
}
