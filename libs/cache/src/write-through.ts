import type { Logger } from '@acs/logger';
import type { Cache } from './cache.js';

/** How one kind of record is projected into the cache. */
export interface WriteThroughTarget<R> {
  key(record: R): string;
  /** Increases with every change of the record (a database column). */
  version(record: R): number;
  value(record: R): string;
  /** A number, or per record: e.g. an entry that must be re-read from the database when a state it encodes runs out. */
  ttlSeconds: number | ((record: R) => number);
  /** What identifies the record in log lines (never secrets). */
  describe(record: R): Record<string, unknown>;
}

/** Anything with a transaction: a @acs/db Db, typed structurally so this lib needs no database. */
export interface Transactional<Tx> {
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
}

export interface WriteThroughDeps<Tx> {
  db: Transactional<Tx>;
  cache: Cache;
  logger: Logger;
}

/** Versioned, so an older write (a slow refill) can never replace a newer one. Returns false when refused. */
export function cacheRecord<R>(cache: Cache, target: WriteThroughTarget<R>, record: R): Promise<boolean> {
  const ttl = typeof target.ttlSeconds === 'number' ? target.ttlSeconds : target.ttlSeconds(record);
  return cache.setIfNewer(target.key(record), target.version(record), target.value(record), ttl);
}

/**
 * The write-through of a change. It runs while the change holds the record's row lock, so no
 * other change of it is in flight and every refill carries an older version: an entry that claims
 * a version as new as this one cannot have come from this database (a change rolled back after
 * its cache write landed, a database restored from a backup). Refusing to replace it would leave
 * the gateway on that entry (a revoked key still working, a demoted Admin keeping the role), so it
 * is replaced.
 */
async function writeThrough<R>(deps: WriteThroughDeps<unknown>, target: WriteThroughTarget<R>, record: R): Promise<void> {
  if (await cacheRecord(deps.cache, target, record)) return;
  deps.logger.warn(
    { ...target.describe(record), version: target.version(record) },
    'the cached record claimed a version the database does not have; replacing it',
  );
  await deps.cache.del(target.key(record));
  // A refill landing between del and this write carries an older version, so this one still wins.
  if (!(await cacheRecord(deps.cache, target, record))) throw new Error('could not write the changed record through to the cache');
}

/**
 * Runs a change in a transaction and writes the cache before the commit, so the caller's answer
 * means the gateway already sees the change (the next request) and a cache failure changes
 * nothing. Should the commit fail, or the cache write fail after it may have landed (a timeout),
 * the entry is dropped: the next request refills it from the database.
 */
export async function changeWithWriteThrough<Tx, R>(
  deps: WriteThroughDeps<Tx>,
  target: WriteThroughTarget<R>,
  change: (tx: Tx) => Promise<R | null>,
): Promise<R | null> {
  let attempted: { record: R } | null = null;
  try {
    return await deps.db.transaction(async (tx) => {
      const changed = await change(tx);
      if (changed) {
        attempted = { record: changed };
        await writeThrough(deps, target, changed);
      }
      return changed;
    });
  } catch (err) {
    const stale = attempted as { record: R } | null;
    if (stale) {
      await deps.cache
        .del(target.key(stale.record))
        .catch((delErr: unknown) =>
          deps.logger.error({ err: delErr, ...target.describe(stale.record) }, 'could not drop a cache entry after a failed change'),
        );
    }
    throw err;
  }
}
