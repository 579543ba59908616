import { parseApiKey, secretMatchesHash } from '@acs/auth';
import type { Cache } from '@acs/cache';
import { MISSING_KEY_MARKER, apiKeyCacheKey, type ApiKeyCacheRecord } from '@acs/contracts';
import type { Logger } from '@acs/logger';

/** Asks the keys service on a cache miss (it refills the cache); null means "no such key". */
export type KeyLookup = (key: string, requestId: string) => Promise<ApiKeyCacheRecord | null>;

export type KeyAuthResult = { ok: true; record: ApiKeyCacheRecord } | { ok: false };

const DENIED: KeyAuthResult = { ok: false };

/**
 * Layer 1. Reads the key record from the cache the keys service writes through, so a scope
 * change or revocation applies on the very next request; never an in-process copy.
 */
export function createKeyAuthenticator(cache: Cache, lookup: KeyLookup, logger: Logger) {
  async function findRecord(key: string, requestId: string): Promise<ApiKeyCacheRecord | null> {
    let cached: { version: number; value: string } | null;
    try {
      cached = await cache.getVersioned(apiKeyCacheKey(key));
    } catch (err) {
      // Redis is down: the keys service reads its database, which is always current.
      logger.warn({ err, requestId }, 'key cache unavailable; asking the keys service');
      return lookup(key, requestId);
    }
    if (cached === null) return lookup(key, requestId);
    if (cached.value === MISSING_KEY_MARKER) return null;
    return JSON.parse(cached.value) as ApiKeyCacheRecord;
  }

  return async function authenticate(key: string | string[] | undefined, secret: string | string[] | undefined, requestId: string): Promise<KeyAuthResult> {
    if (typeof key !== 'string' || typeof secret !== 'string' || key.length === 0 || secret.length === 0) return DENIED;
    // Malformed keys never cost a cache or database read.
    if (parseApiKey(key) === null || secret.length > 256) return DENIED;
    const record = await findRecord(key, requestId);
    if (record === null || record.revoked || !secretMatchesHash(secret, record.secretHash)) return DENIED;
    return { ok: true, record };
  };
}

export type KeyAuthenticator = ReturnType<typeof createKeyAuthenticator>;
