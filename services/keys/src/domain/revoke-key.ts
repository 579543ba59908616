import { lockApiKey, updateApiKey } from '../data-access/api-keys-repository.js';
import { recordKeyChange } from '../events/keys-audit.js';
import { recordKeyEvent } from '../events/record-key-event.js';
import type { ApiKey } from './api-key.js';
import type { KeysDeps } from './deps.js';
import { changeWithWriteThrough } from './write-through.js';

/**
 * Revokes under the key's row lock, so two revocations at once record one `api_key.revoked`. `owns` decides who may revoke
 * (the owner, or an operator); a key that is missing or not the caller's gives null.
 */
export async function revokeKey(deps: KeysDeps, keyId: string, owns: (apiKey: ApiKey) => boolean): Promise<ApiKey | null> {
  const revoked = await changeWithWriteThrough(deps, async (tx) => {
    const current = await lockApiKey(tx, keyId);
    if (!current || !owns(current)) return null;
    // A second revocation keeps the first time but still moves the version on, so the cached
    // record is written again (a repair for an operator); only the first one is an event.
    const changed = await updateApiKey(tx, keyId, { revoke: true });
    if (changed && !current.revokedAt) {
      await recordKeyEvent(tx, 'revoked', changed);
      await recordKeyChange(tx, deps.actor, 'api_key.revoked', current, changed);
    }
    return changed;
  });
  deps.onOutboxWrite();
  return revoked;
}
