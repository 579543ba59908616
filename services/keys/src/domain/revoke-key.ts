import { lockApiKey, updateApiKey } from '../data-access/api-keys-repository.js';
import type { ApiKey } from './api-key.js';
import type { KeysDeps } from './deps.js';
import { changeWithOutbox, recordKeyLifecycle } from './key-lifecycle.js';

/**
 * Revokes under the key's row lock, so two revocations at once record one `api_key.revoked`. `owns` decides who may revoke
 * (the owner, or an operator); a key that is missing or not the caller's gives null.
 */
export async function revokeKey(deps: KeysDeps, keyId: string, owns: (apiKey: ApiKey) => boolean): Promise<ApiKey | null> {
  const revoked = await changeWithOutbox(deps, async (tx) => {
    const current = await lockApiKey(tx, keyId);
    if (!current || !owns(current)) return null;
    // A second revocation keeps the first time but still moves the version on, so the cached
    // record is written again (a repair for an operator); only the first one is an event.
    const changed = await updateApiKey(tx, keyId, { revoke: true });
    if (changed && !current.revokedAt) await recordKeyLifecycle(tx, deps, 'revoked', current, changed);
    return changed;
  });
  return revoked;
}
