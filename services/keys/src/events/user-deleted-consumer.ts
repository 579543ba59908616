import { eraseUserFromAudit, systemActor } from '@acs/audit';
import { consumeUserDeleted, type Bus, type Subscription } from '@acs/bus';
import { listApiKeys } from '../data-access/api-keys-repository.js';
import type { KeysDeps } from '../domain/deps.js';
import { revokeKey } from '../domain/revoke-key.js';
import { KEYS_AUDIT } from './keys-audit.js';

const CONSUMER_ACTOR = systemActor('keys user-deleted consumer');

/**
 * A deleted account (issue 32 item 5): every key of the user is revoked, each written through to
 * the cache record the gateway reads (refused on its next request) with its api_key.revoked event,
 * and the user's personal data is erased from keys' audit trail. Idempotent: a redelivery finds the
 * keys revoked and nothing left to erase.
 */
async function revokeKeysOfDeletedUser(deps: KeysDeps, userId: number): Promise<number> {
  const asConsumer = { ...deps, actor: CONSUMER_ACTOR };
  let revoked = 0;
  for (const key of await listApiKeys(deps.db, { ownerUserId: userId })) {
    if (key.revokedAt) continue;
    if (await revokeKey(asConsumer, key.id, (current) => current.ownerUserId === userId)) revoked += 1;
  }
  await deps.db.transaction((tx) => eraseUserFromAudit(tx, KEYS_AUDIT, userId, CONSUMER_ACTOR));
  deps.logger.info({ audit: 'user.keys_revoked', userId, revoked }, 'keys of a deleted account revoked');
  return revoked;
}

/** `queue`: keys' durable queue for identity's user events (USER_EVENTS_QUEUE, keys.user-events), bound to user.*. */
export function startUserDeletedConsumer(deps: KeysDeps, bus: Bus, queue: string): Promise<Subscription> {
  return consumeUserDeleted(bus, queue, (userId) => revokeKeysOfDeletedUser(deps, userId));
}
