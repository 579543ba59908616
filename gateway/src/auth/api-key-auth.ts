import { hashSecret, parseApiKey, secretHashMatches, secretMatchesHash, type KeyEnvironment } from '@acs/auth';
import { parseVersioned, type Cache, type RespReply } from '@acs/cache';
import { MISSING_KEY_MARKER, apiKeyCacheKey, authzCacheKey, type ApiKeyCacheRecord, type AuthzRecord } from '@acs/contracts';
import type { Logger } from '@acs/logger';
import type { LimitVerdict } from '../limits/gcra.js';
import { READ_AND_LIMIT, rateLimitCacheKey } from '../limits/limit-script.js';
import type { GatewayMetrics } from '../metrics/gateway-metrics.js';
import { ParsedMemo } from './parsed-memo.js';
import { endRedisSpan, type RequestTrace } from '../tracing/request-trace.js';

/** Ask the owning service on a cache miss (it refills the cache); null means "no such key/user". */
export type KeyLookup = (key: string, requestId: string) => Promise<ApiKeyCacheRecord | null>;
export type AuthzLookup = (userId: number, requestId: string) => Promise<AuthzRecord | null>;

/** What the Redis script needs to count the request only if the gateway's own checks will pass (limit-script.ts). */
export interface LimitRequest {
  /** The scopes that grant the route, each between spaces. */
  grantingScopes: string;
  /** The route's minimum effective role, '' when it needs no user. */
  minRole: string;
  /** The default windows per environment, "<limit>:<seconds>,...". */
  defaults: Record<KeyEnvironment, string>;
}

export type CallerAuthResult =
  | {
      ok: true;
      record: ApiKeyCacheRecord;
      authz: AuthzRecord | null;
      environment: KeyEnvironment;
      /** The script's decision when it counted the request in Redis; null when it did not (not asked, not limited, cache miss or outage). */
      limit: LimitVerdict | null;
      /** Redis could not be read: the records came from the owning services. */
      cacheDown: boolean;
    }
  | { ok: false };

const DENIED: CallerAuthResult = { ok: false };
type Entry = { version: number; value: string } | null;

/**
 * Layer 1, and the user's authorization record for layer 2, read together in one Redis round
 * trip from the records the owning services write through: a scope change, revocation, role or
 * trial change applies on the very next request. Never an in-process copy. When the request may be
 * rate limited, the same round trip is the READ_AND_LIMIT script, which also counts it.
 */
type KeyRecord = ApiKeyCacheRecord & { secretHashBytes: Buffer; previousSecretHashBytes: Buffer | null };
const withHashBytes = (record: ApiKeyCacheRecord): KeyRecord => ({
  ...record,
  secretHashBytes: Buffer.from(record.secretHash, 'base64url'),
  previousSecretHashBytes: record.previousSecretHash ? Buffer.from(record.previousSecretHash, 'base64url') : null,
});

/**
 * The presented secret against the current hash, and only for a key in a grace period (after a roll)
 * against the replaced one while the period lasts: a key with no previous secret pays nothing more.
 * Both comparisons are constant-time; the second runs only when the first failed.
 */
function secretAccepted(record: KeyRecord, secret: string, presentedHash: string | null, nowMs: number): boolean {
  if (presentedHash !== null ? secretHashMatches(presentedHash, record.secretHashBytes) : secretMatchesHash(secret, record.secretHashBytes))
    return true;
  const previous = record.previousSecretHashBytes;
  if (previous === null || !(nowMs < record.previousSecretEndsAtMs!)) return false;
  return presentedHash !== null ? secretHashMatches(presentedHash, previous) : secretMatchesHash(secret, previous);
}

/** The script's reply: the two entries, then (when it counted the request) status, window, remaining, reset, retry-after. */
function verdictOf(reply: RespReply[]): LimitVerdict | null {
  if (reply.length < 7) return null;
  return {
    admitted: reply[2] === 1,
    window: (reply[3] as number) - 1,
    remaining: reply[4] as number,
    resetSeconds: reply[5] as number,
    retryAfterSeconds: reply[6] as number,
  };
}

export function createCallerAuthenticator(
  cache: Cache,
  lookupKey: KeyLookup,
  lookupAuthz: AuthzLookup | null,
  logger: Logger,
  metrics: Pick<GatewayMetrics, 'cacheFellBack'>,
) {
  const keyRecords = new ParsedMemo<KeyRecord>((raw) => withHashBytes(JSON.parse(raw) as ApiKeyCacheRecord));
  const authzRecords = new ParsedMemo<AuthzRecord>((raw) => JSON.parse(raw) as AuthzRecord);
  const evalScript = cache.evalScript?.bind(cache);

  function cacheFailed(err: unknown, requestId: string): null {
    // Redis is down: the owning services read their databases, which are always current.
    logger.warn({ err, requestId }, 'cache unavailable; asking the owning services');
    metrics.cacheFellBack();
    return null;
  }

  async function readEntries(keys: string[], requestId: string, trace: RequestTrace | null): Promise<Entry[] | null> {
    const span = trace === null ? null : trace.redisSpan('MGET');
    try {
      const entries = await cache.mgetVersioned(keys);
      endRedisSpan(span, undefined);
      return entries;
    } catch (err) {
      endRedisSpan(span, err);
      return cacheFailed(err, requestId);
    }
  }

  /** The script's reply, or null when Redis could not run it. */
  async function readAndLimit(keys: string[], args: string[], requestId: string, trace: RequestTrace | null): Promise<RespReply[] | null> {
    const span = trace === null ? null : trace.redisSpan('EVALSHA');
    try {
      const reply = await evalScript!(READ_AND_LIMIT, keys, args);
      endRedisSpan(span, undefined);
      return reply;
    } catch (err) {
      endRedisSpan(span, err);
      return cacheFailed(err, requestId);
    }
  }

  async function keyRecord(entry: Entry | undefined, key: string, requestId: string): Promise<KeyRecord | null> {
    if (!entry) {
      const looked = await lookupKey(key, requestId);
      return looked && withHashBytes(looked);
    }
    if (entry.value === MISSING_KEY_MARKER) return null;
    return keyRecords.get(entry.value);
  }

  async function authzRecord(entry: Entry | undefined, userId: number, requestId: string): Promise<AuthzRecord | null> {
    if (entry) return authzRecords.get(entry.value);
    if (!lookupAuthz) return null;
    return lookupAuthz(userId, requestId);
  }

  return async function authenticate(
    key: string | string[] | undefined,
    secret: string | string[] | undefined,
    requestId: string,
    userId?: number,
    limit?: LimitRequest | null,
    trace: RequestTrace | null = null,
  ): Promise<CallerAuthResult> {
    if (typeof key !== 'string' || typeof secret !== 'string' || key.length === 0 || secret.length === 0) return DENIED;
    // Malformed keys never cost a cache or database read.
    const parsed = parseApiKey(key);
    if (parsed === null || secret.length > 256) return DENIED;
    let entries: Entry[] | null;
    let verdict: LimitVerdict | null = null;
    let presentedHash: string | null = null;
    if (limit && evalScript) {
      presentedHash = hashSecret(secret);
      const keys =
        userId === undefined
          ? [apiKeyCacheKey(key), rateLimitCacheKey(key)]
          : [apiKeyCacheKey(key), rateLimitCacheKey(key), authzCacheKey(userId)];
      const reply = await readAndLimit(
        keys,
        [presentedHash, limit.grantingScopes, limit.minRole, limit.defaults[parsed.environment]],
        requestId,
        trace,
      );
      entries = reply && [parseVersioned(reply[0] as string | null), parseVersioned(reply[1] as string | null)];
      if (reply) verdict = verdictOf(reply);
    } else {
      entries = await readEntries(
        userId === undefined ? [apiKeyCacheKey(key)] : [apiKeyCacheKey(key), authzCacheKey(userId)],
        requestId,
        trace,
      );
    }
    const record = await keyRecord(entries?.[0], key, requestId);
    if (record === null || record.revoked) return DENIED;
    // Expiry is an instant in the record compared with this replica's clock: no scheduler, no cache delay.
    const nowMs = record.expiresAtMs === undefined && record.previousSecretHashBytes === null ? 0 : Date.now();
    if (record.expiresAtMs !== undefined && nowMs >= record.expiresAtMs) return DENIED;
    if (!secretAccepted(record, secret, presentedHash, nowMs)) return DENIED;
    const authz = userId === undefined ? null : await authzRecord(entries?.[1], userId, requestId);
    return { ok: true, record, authz, environment: parsed.environment, limit: verdict, cacheDown: entries === null };
  };
}

export type CallerAuthenticator = ReturnType<typeof createCallerAuthenticator>;
