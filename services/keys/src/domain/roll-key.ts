import { generateApiSecret, hashSecret, parseApiKey } from '@acs/auth';
import { conflict } from '@acs/errors';
import { lockApiKey, replaceSecretHash } from '../data-access/api-keys-repository.js';
import type { ApiKey } from './api-key.js';
import type { KeysDeps } from './deps.js';
import { changeWithOutbox, recordKeyLifecycle } from './key-lifecycle.js';

/**
 * A new secret for the same key. The replaced one keeps working for `graceSeconds` (0: stops at once,
 * for a leaked secret), so clients can switch without an outage; a secret replaced earlier and still in
 * its grace period stops now (at most two secrets work). `owns` decides who may roll (the owner, or an
 * operator); someone else's key is answered like a missing one by `notMine`.
 */
export async function rollApiKey(
  deps: KeysDeps,
  keyId: string,
  graceSeconds: number,
  owns: (apiKey: ApiKey) => boolean,
  notMine: () => Error,
): Promise<{ apiKey: ApiKey; secret: string }> {
  let secret = '';
  const rolled = await changeWithOutbox(deps, async (tx) => {
    const current = await lockApiKey(tx, keyId);
    if (!current || !owns(current)) throw notMine();
    if (current.revokedAt) throw conflict('The key is revoked; create a new one', { code: 'key_revoked' });
    if (current.expiresAt && current.expiresAt.getTime() <= Date.now())
      throw conflict('The key has expired; create a new one', { code: 'key_expired' });
    // In the current format (docs/key-format.md), with the key's own prefix: rolling is how a legacy secret goes.
    secret = newSecretFor(current);
    const replaced = await replaceSecretHash(
      tx,
      keyId,
      hashSecret(secret),
      graceSeconds > 0 ? new Date(Date.now() + graceSeconds * 1000) : null,
    );
    if (replaced) await recordKeyLifecycle(tx, deps, 'rolled', current, replaced);
    return replaced;
  });
  deps.logger.info(
    {
      audit: 'api_key.rolled',
      keyId,
      userId: rolled!.ownerUserId,
      graceSeconds,
      previousSecretEndsAt: rolled!.previousSecretEndsAt?.toISOString() ?? null,
    },
    'API key secret rolled',
  );
  return { apiKey: rolled!, secret };
}

/** A secret for `apiKey` in the current format, with the prefix and environment its key was made with. */
function newSecretFor(apiKey: ApiKey): string {
  const parsed = parseApiKey(apiKey.key);
  // A key outside the format (none is made so) still gets a new-format secret: its environment names it.
  return generateApiSecret(parsed?.prefix ?? 'acs', parsed?.environment ?? apiKey.environment);
}
