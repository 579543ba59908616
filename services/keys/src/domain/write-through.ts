import { API_KEY_CACHE_TTL_SECONDS, MISSING_KEY_MARKER, MISSING_KEY_TTL_SECONDS, apiKeyCacheKey } from '@acs/contracts';
import type { Queryable } from '@acs/db';
import { type ApiKey, toCacheRecord } from './api-key.js';
import type { KeysDeps } from './deps.js';

/** Versioned, so an older write (a slow refill) can never replace a newer one. */
export async function cacheApiKey({ cache }: Pick<KeysDeps, 'cache'>, apiKey: ApiKey): Promise<void> {
  await cache.setIfNewer(apiKeyCacheKey(apiKey.key), apiKey.version, JSON.stringify(toCacheRecord(apiKey)), API_KEY_CACHE_TTL_SECONDS);
}

/** Version 0: any real record (version >= 1) written later replaces the marker. */
export async function cacheMissingKey({ cache }: Pick<KeysDeps, 'cache'>, key: string): Promise<void> {
  await cache.setIfNewer(apiKeyCacheKey(key), 0, MISSING_KEY_MARKER, MISSING_KEY_TTL_SECONDS);
}

/**
 * Runs a change in a transaction and writes the cache before the commit, so the caller's answer
 * means the gateway already sees the change (the next request) and a cache failure changes
 * nothing. Should the commit fail after the cache write, the entry is dropped: the next request
 * refills it from the database.
 */
export async function changeWithWriteThrough(
  deps: KeysDeps,
  change: (tx: Queryable) => Promise<ApiKey | null>,
): Promise<ApiKey | null> {
  let written: ApiKey | null = null;
  try {
    return await deps.db.transaction(async (tx) => {
      const changed = await change(tx);
      if (changed) {
        await cacheApiKey(deps, changed);
        written = changed;
      }
      return changed;
    });
  } catch (err) {
    const stale = written as ApiKey | null;
    if (stale) await deps.cache.del(apiKeyCacheKey(stale.key)).catch((delErr: unknown) => deps.logger.error({ err: delErr }, 'could not drop a cache entry after a failed commit'));
    throw err;
  }
}
