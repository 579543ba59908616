import { API_KEY_CACHE_TTL_SECONDS, MISSING_KEY_MARKER, MISSING_KEY_TTL_SECONDS, apiKeyCacheKey } from '@acs/contracts';
import type { Queryable } from '@acs/db';
import { type ApiKey, toCacheRecord } from './api-key.js';
import type { KeysDeps } from './deps.js';

/** Versioned, so an older write (a slow refill) can never replace a newer one. Returns false when refused. */
export async function cacheApiKey({ cache }: Pick<KeysDeps, 'cache'>, apiKey: ApiKey): Promise<boolean> {
  return cache.setIfNewer(apiKeyCacheKey(apiKey.key), apiKey.version, JSON.stringify(toCacheRecord(apiKey)), API_KEY_CACHE_TTL_SECONDS);
}

/** Version 0: any real record (version >= 1) written later replaces the marker. */
export async function cacheMissingKey({ cache }: Pick<KeysDeps, 'cache'>, key: string): Promise<void> {
  await cache.setIfNewer(apiKeyCacheKey(key), 0, MISSING_KEY_MARKER, MISSING_KEY_TTL_SECONDS);
}

/**
 * The write-through of a change. It runs while the change holds the key's row lock, so no other
 * change of this key is in flight and every refill carries an older version: an entry that claims
 * a version as new as this one cannot have come from this database (a change rolled back after its
 * cache write landed, a database restored from a backup). Refusing to replace it would leave the
 * gateway on that entry, e.g. a revoked key still working for a day, so it is replaced.
 */
async function writeThrough(deps: KeysDeps, apiKey: ApiKey): Promise<void> {
  if (await cacheApiKey(deps, apiKey)) return;
  deps.logger.warn({ keyId: apiKey.id, version: apiKey.version }, 'the cached key record claimed a version the database does not have; replacing it');
  await deps.cache.del(apiKeyCacheKey(apiKey.key));
  // A refill landing between del and this write carries an older version, so this one still wins.
  if (!(await cacheApiKey(deps, apiKey))) throw new Error('could not write the changed API key through to the cache');
}

/**
 * Runs a change in a transaction and writes the cache before the commit, so the caller's answer
 * means the gateway already sees the change (the next request) and a cache failure changes
 * nothing. Should the commit fail, or the cache write fail after it may have landed (a timeout),
 * the entry is dropped: the next request refills it from the database.
 */
export async function changeWithWriteThrough(
  deps: KeysDeps,
  change: (tx: Queryable) => Promise<ApiKey | null>,
): Promise<ApiKey | null> {
  let attempted: ApiKey | null = null;
  try {
    return await deps.db.transaction(async (tx) => {
      const changed = await change(tx);
      if (changed) {
        attempted = changed;
        await writeThrough(deps, changed);
      }
      return changed;
    });
  } catch (err) {
    const stale = attempted as ApiKey | null;
    if (stale) await deps.cache.del(apiKeyCacheKey(stale.key)).catch((delErr: unknown) => deps.logger.error({ err: delErr, keyId: stale.id }, 'could not drop a cache entry after a failed change'));
    throw err;
  }
}
