import { AUTHZ_CACHE_TTL_SECONDS, authzCacheKey } from '@acs/contracts';
import type { Queryable } from '@acs/db';
import { toAuthzRecord, type User } from './user.js';
import type { UserStore } from './deps.js';

/** Versioned, so an older write (a slow refill) can never replace a newer one. Returns false when refused. */
export async function cacheAuthzRecord({ cache }: Pick<UserStore, 'cache'>, user: User): Promise<boolean> {
  return cache.setIfNewer(authzCacheKey(user.id), user.version, JSON.stringify(toAuthzRecord(user)), AUTHZ_CACHE_TTL_SECONDS);
}

/**
 * The write-through of a change. It runs while the change holds the user's row lock, so no other
 * change of this user is in flight and every refill carries an older version: an entry that claims
 * a version as new as this one cannot have come from this database (a change rolled back after its
 * cache write landed, a database restored from a backup). Refusing to replace it would leave the
 * gateway on that entry, e.g. a demoted Admin keeping the role for a day, so it is replaced.
 */
async function writeThrough(deps: UserStore, user: User): Promise<void> {
  if (await cacheAuthzRecord(deps, user)) return;
  deps.logger.warn({ userId: user.id, version: user.version }, 'the cached authorization record claimed a version the database does not have; replacing it');
  await deps.cache.del(authzCacheKey(user.id));
  // A refill landing between del and this write carries an older version, so this one still wins.
  if (!(await cacheAuthzRecord(deps, user))) throw new Error('could not write the changed user through to the cache');
}

/**
 * Runs a change in a transaction and writes the cache before the commit, so the caller's answer
 * means the gateway already sees the change (the next request) and a cache failure changes
 * nothing. Should the commit fail, or the cache write fail after it may have landed (a timeout),
 * the entry is dropped: the next request refills it from the database.
 */
export async function changeWithWriteThrough(deps: UserStore, change: (tx: Queryable) => Promise<User | null>): Promise<User | null> {
  let attempted: User | null = null;
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
    const stale = attempted as User | null;
    if (stale) {
      await deps.cache.del(authzCacheKey(stale.id)).catch((delErr: unknown) => deps.logger.error({ err: delErr, userId: stale.id }, 'could not drop a cache entry after a failed change'));
    }
    throw err;
  }
}
