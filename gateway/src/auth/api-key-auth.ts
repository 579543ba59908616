import { parseApiKey, secretMatchesHash } from '@acs/auth';
import type { Cache } from '@acs/cache';
import { MISSING_KEY_MARKER, apiKeyCacheKey, authzCacheKey, type ApiKeyCacheRecord, type AuthzRecord } from '@acs/contracts';
import type { Logger } from '@acs/logger';
import type { GatewayMetrics } from '../metrics/gateway-metrics.js';
import { ParsedMemo } from './parsed-memo.js';

/** Ask the owning service on a cache miss (it refills the cache); null means "no such key/user". */
export type KeyLookup = (key: string, requestId: string) => Promise<ApiKeyCacheRecord | null>;
export type AuthzLookup = (userId: number, requestId: string) => Promise<AuthzRecord | null>;

export type CallerAuthResult =
  | { ok: true; record: ApiKeyCacheRecord; authz: AuthzRecord | null }
  | { ok: false };

const DENIED: CallerAuthResult = { ok: false };
type Entry = { version: number; value: string } | null;

/**
 * Layer 1, and the user's authorization record for layer 2, read together in one Redis round
 * trip from the records the owning services write through: a scope change, revocation, role or
 * trial change applies on the very next request. Never an in-process copy.
 */
type KeyRecord = ApiKeyCacheRecord & { secretHashBytes: Buffer };
const withHashBytes = (record: ApiKeyCacheRecord): KeyRecord => ({ ...record, secretHashBytes: Buffer.from(record.secretHash, 'base64url') });

export function createCallerAuthenticator(cache: Cache, lookupKey: KeyLookup, lookupAuthz: AuthzLookup | null, logger: Logger, metrics: Pick<GatewayMetrics, 'cacheFellBack'>) {
  const keyRecords = new ParsedMemo<KeyRecord>((raw) => withHashBytes(JSON.parse(raw) as ApiKeyCacheRecord));
  const authzRecords = new ParsedMemo<AuthzRecord>((raw) => JSON.parse(raw) as AuthzRecord);

  async function readEntries(keys: string[], requestId: string): Promise<Entry[] | null> {
    try {
      return await cache.mgetVersioned(keys);
    } catch (err) {
      // Redis is down: the owning services read their databases, which are always current.
      logger.warn({ err, requestId }, 'cache unavailable; asking the owning services');
      metrics.cacheFellBack();
      return null;
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
  ): Promise<CallerAuthResult> {
    if (typeof key !== 'string' || typeof secret !== 'string' || key.length === 0 || secret.length === 0) return DENIED;
    // Malformed keys never cost a cache or database read.
    if (parseApiKey(key) === null || secret.length > 256) return DENIED;
    const cacheKeys = userId === undefined ? [apiKeyCacheKey(key)] : [apiKeyCacheKey(key), authzCacheKey(userId)];
    const entries = await readEntries(cacheKeys, requestId);
    const record = await keyRecord(entries?.[0], key, requestId);
    if (record === null || record.revoked || !secretMatchesHash(secret, record.secretHashBytes)) return DENIED;
    const authz = userId === undefined ? null : await authzRecord(entries?.[1], userId, requestId);
    return { ok: true, record, authz };
  };
}

export type CallerAuthenticator = ReturnType<typeof createCallerAuthenticator>;
