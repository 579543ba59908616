import { API_KEY_CACHE_TTL_SECONDS, MISSING_KEY_MARKER, MISSING_KEY_TTL_SECONDS, apiKeyCacheKey } from '@acs/contracts';
import type { Queryable } from '@acs/db';
import { cacheRecord, changeWithWriteThrough as changeRecordWithWriteThrough, type WriteThroughTarget } from '@acs/cache';
import { type ApiKey, toCacheRecord } from './api-key.js';
import type { KeysDeps } from './deps.js';

/** The gateway's projection of a key (libs/contracts api-key-cache), written through on every change. */
const API_KEY_TARGET: WriteThroughTarget<ApiKey> = {
  key: (apiKey) => apiKeyCacheKey(apiKey.key),
  version: (apiKey) => apiKey.version,
  value: (apiKey) => JSON.stringify(toCacheRecord(apiKey)),
  ttlSeconds: API_KEY_CACHE_TTL_SECONDS,
  describe: (apiKey) => ({ keyId: apiKey.id }),
};

export function cacheApiKey({ cache }: Pick<KeysDeps, 'cache'>, apiKey: ApiKey): Promise<boolean> {
  return cacheRecord(cache, API_KEY_TARGET, apiKey);
}

/** Version 0: any real record (version >= 1) written later replaces the marker. */
export async function cacheMissingKey({ cache }: Pick<KeysDeps, 'cache'>, key: string): Promise<void> {
  await cache.setIfNewer(apiKeyCacheKey(key), 0, MISSING_KEY_MARKER, MISSING_KEY_TTL_SECONDS);
}

/** A key change in a transaction, written through to the cache before the commit (libs/cache). */
export function changeWithWriteThrough(deps: KeysDeps, change: (tx: Queryable) => Promise<ApiKey | null>): Promise<ApiKey | null> {
  return changeRecordWithWriteThrough(deps, API_KEY_TARGET, change);
}
