import { authzCacheKey } from '@acs/contracts';
import type { Queryable } from '@acs/db';
import { cacheRecord, changeWithWriteThrough as changeRecordWithWriteThrough, type WriteThroughTarget } from '@acs/cache';
import { authzRecordTtlSeconds, toAuthzRecord, type User } from './user.js';
import type { UserStore } from './deps.js';

/** The gateway's authorization record of a user (libs/contracts authz), written through on every change. */
const AUTHZ_TARGET: WriteThroughTarget<User> = {
  key: (user) => authzCacheKey(user.id),
  version: (user) => user.version,
  value: (user) => JSON.stringify(toAuthzRecord(user)),
  ttlSeconds: (user) => authzRecordTtlSeconds(user),
  describe: (user) => ({ userId: user.id }),
};

export function cacheAuthzRecord({ cache }: Pick<UserStore, 'cache'>, user: User): Promise<boolean> {
  return cacheRecord(cache, AUTHZ_TARGET, user);
}

/** A user change in a transaction, written through to the cache before the commit (libs/cache). */
export function changeWithWriteThrough(deps: UserStore, change: (tx: Queryable) => Promise<User | null>): Promise<User | null> {
  return changeRecordWithWriteThrough(deps, AUTHZ_TARGET, change);
}
