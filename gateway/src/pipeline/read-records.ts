import { classifyApiSecret, parseApiKey } from '@acs/auth';
import { invalidCredentialsError, missingApiKeyError } from '@acs/errors';
import { claimedUserId } from '../auth/claimed-user.js';
import { secretCheck } from './authenticate-key.js';
import { guessCounts, settleCounts } from './count-with-read.js';
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

/** Whether the record this replica read last for the key takes the secret (the check is kept for the guess and step 2). */
function acceptedOnLastSeen(ex: ApiExchange, deps: PipelineDeps, key: string): boolean {
  const last = deps.records.lastKeyRecord(key);
  return last !== undefined && secretCheck(ex, last);
}

/**
 * Step 1: the credentials' form (a missing header, a malformed key or secret is refused without any read), then the
 * request's one Redis round trip: the key's record, the claimed user's and the key owner's records, and for a
 * request that will pass, the limiter's and the owner's quota counts.
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
  // A secret that starts like the current format but fails its checksum (junk, a typo) can be no key's secret:
  // refused like an unknown key, before the Redis read (docs/key-format.md). Legacy secrets go on to the hash.
  // A secret the key's last-seen record accepts is a real one, so its checksum holds: not computed again.
  if (!acceptedOnLastSeen(ex, deps, key) && classifyApiSecret(secret, parsed.prefix, parsed.environment) === 'invalid')
    return refuse(ex, deps, 'api_key', invalidCredentialsError());
  if (ex.found.kind === 'found' && ex.found.route.user.kind === 'user') peekToken(ex, deps);
  const guess = guessCounts(ex, deps);
  const read = await deps.records.read({
    key,
    userId: ex.claimedUserId,
    ownerId: guess.ownerId,
    requestId: ex.requestId,
    trace: ex.trace,
    keyCounters: guess.limit && { reads: guess.limit.counters.previous, increments: guess.limit.counters.current },
    ownerIncrements: guess.quota === null ? null : guess.quota.counters.names,
  });
  ex.record = read.record;
  ex.authz = read.authz;
  ex.owner = read.owner;
  ex.cacheDown = read.cacheDown;
  settleCounts(ex, deps, guess, read);
  return undefined;
}
