import { grantsScope, parseApiKey } from '@acs/auth';
import { invalidCredentialsError, missingApiKeyError } from '@acs/errors';
import { claimedUserId } from '../auth/claimed-user.js';
import { userRefusal } from '../auth/user-check.js';
import { countersAt, type CountGuess } from '../limits/rate-limiter.js';
import { secretCheck } from './authenticate-key.js';
import type { ApiExchange, PipelineDeps, Step } from './exchange.js';
import { refuse } from './refuse.js';

const BEARER = /^Bearer ([A-Za-z0-9._~+/=-]+)$/;
const MAX_SECRET_LENGTH = 256;

/**
 * On a user route the token is only peeked at (no signature check), so the user's authorization record
 * comes in the same Redis round trip as the key's. A token verified before names its user for free.
 */
function peekToken(ex: ApiExchange, deps: PipelineDeps): void {
  const header = ex.req.headers.authorization;
  ex.token = header === undefined ? null : (BEARER.exec(header)?.[1] ?? null);
  if (ex.token === null || deps.tokens === null) return;
  ex.remembered = deps.tokens.remembered(ex.token);
  ex.claimedUserId = ex.remembered === undefined ? claimedUserId(ex.token) : (ex.remembered?.userId ?? undefined);
}

/**
 * The limiter's counters for this request's read, or null. They are counted only when the request will pass
 * every other check judged on the records this replica read last for the key and the user (the guess); the
 * read then confirms the key's record is still that one. A key without limits counts nothing.
 */
function countWithRead(ex: ApiExchange, deps: PipelineDeps): CountGuess | null {
  if (ex.found.kind !== 'found') return null;
  const { route } = ex.found;
  const user = route.user.kind === 'user' ? route.user : null;
  if (user !== null && (ex.token === null || deps.tokens === null || ex.remembered === null)) return null;
  const last = deps.records.lastKeyRecord(ex.apiKey);
  if (last === undefined) return null;
  const plan = deps.limiter.planFor(ex.apiKey, last, ex.environment);
  if (plan === null || !grantsScope(last.scopes, route.scope) || !secretCheck(ex, last)) return null;
  const now = Date.now();
  if (user !== null) {
    const authz = ex.claimedUserId === undefined ? undefined : deps.records.lastAuthzRecord(ex.claimedUserId);
    if (authz === undefined || userRefusal(authz, user.minRole, Math.floor(now / 1000)) !== null) return null;
  }
  return { plan, counters: countersAt(plan, now), now };
}

/**
 * Step 1: the credentials' form (a missing header or a malformed key is refused without any read), then the
 * request's one Redis round trip: the key's record, the claimed user's record, and for a limited key that
 * will pass, the limiter's count.
 */
export async function readRecords(ex: ApiExchange, deps: PipelineDeps): Promise<Step> {
  const key = ex.req.headers['x-api-key'];
  const secret = ex.req.headers['x-api-secret'];
  if (typeof key !== 'string' || typeof secret !== 'string' || key.length === 0 || secret.length === 0) {
    return refuse(ex, deps, 'api_key', missingApiKeyError());
  }
  const parsed = parseApiKey(key);
  if (parsed === null || secret.length > MAX_SECRET_LENGTH) return refuse(ex, deps, 'api_key', invalidCredentialsError());
  ex.apiKey = key;
  ex.secret = secret;
  ex.environment = parsed.environment;
  if (ex.found.kind === 'found' && ex.found.route.user.kind === 'user') peekToken(ex, deps);
  const guess = countWithRead(ex, deps);
  const read = await deps.records.read({
    key,
    userId: ex.claimedUserId,
    requestId: ex.requestId,
    trace: ex.trace,
    keyCounters: guess === null ? null : { reads: guess.counters.previous, increments: guess.counters.current },
  });
  ex.record = read.record;
  ex.authz = read.authz;
  ex.cacheDown = read.cacheDown;
  if (guess !== null && read.counters !== null) {
    const plan = read.record === null ? null : deps.limiter.planFor(key, read.record, ex.environment);
    ex.limit = deps.limiter.settle(guess, read.counters, plan);
    if (ex.limit?.admitted) ex.counted = { redis: guess.counters.current };
  }
  return undefined;
}
