import type { Queryable } from '@acs/db';
import { recordKeyChange } from '../events/keys-audit.js';
import { recordKeyEvent } from '../events/record-key-event.js';
import type { ApiKey } from './api-key.js';
import type { KeysDeps } from './deps.js';
import { changeWithWriteThrough } from './write-through.js';

/**
 * A lifecycle change of a key (created, rolled, revoked) is both an event for the bus and an entry of
 * the audit trail, written inside the change's transaction: one call, so neither is ever left out.
 */
export async function recordKeyLifecycle(
  tx: Queryable,
  deps: Pick<KeysDeps, 'actor'>,
  kind: 'created' | 'rolled' | 'revoked',
  before: ApiKey | null,
  after: ApiKey,
): Promise<void> {
  await recordKeyEvent(tx, kind, after);
  await recordKeyChange(tx, deps.actor, `api_key.${kind}`, before, after);
}

/** A key change that may write to the outbox: written through to the cache, then the relay is woken once it has committed. */
export async function changeWithOutbox(deps: KeysDeps, change: (tx: Queryable) => Promise<ApiKey | null>): Promise<ApiKey | null> {
  const changed = await changeWithWriteThrough(deps, change);
  deps.onOutboxWrite();
  return changed;
}
