import type { AuthzRecord } from '@acs/contracts';
import { findUserById } from '../data-access/users-repository.js';
import { toAuthzRecord } from './user.js';
import type { UserStore } from './deps.js';
import { cacheAuthzRecord } from './write-through.js';

/**
 * The gateway's cache missed (or is down and it asks us instead): answer from the database, which
 * is always current, and refill the cache. The refill is best effort: during a Redis outage it
 * fails, and failing the lookup as well would turn the gateway's fallback into an outage of every
 * user request. Unknown users are not cached (the JWT's signature already vouches for the id).
 */
export async function lookupAuthzForGateway(deps: UserStore, userId: number): Promise<AuthzRecord | null> {
  const user = await findUserById(deps.db, userId);
  if (!user) return null;
  await cacheAuthzRecord(deps, user).catch((err: unknown) =>
    deps.logger.warn({ err, userId }, 'could not refill the authorization record'),
  );
  return toAuthzRecord(user);
}
