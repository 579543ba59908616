import { hashSecret } from '@acs/auth';
import type { Queryable } from '@acs/db';
import { findKeyIdsBySecretHashes, lockApiKey, markKeyExposed } from '../data-access/api-keys-repository.js';
import { recordKeyChange } from '../events/keys-audit.js';
import { recordKeyEvent } from '../events/record-key-event.js';
import type { ApiKey } from './api-key.js';
import type { KeysDeps } from './deps.js';
import { changeWithOutbox } from './key-lifecycle.js';

/** One secret someone says leaked: who says so, and where it was found when they know. */
export interface LeakedSecret {
  secret: string;
  source: 'secret_scanning' | 'operator';
  url: string | null;
}

/** What a report did for one secret: the keys it named (none: not one of ours), and those exposed by this report. */
export interface LeakOutcome {
  keyIds: string[];
  exposedNow: string[];
}

/**
 * Under the key's row lock: revoked (reason exposed), an `api_key.exposed` event and an audit entry, written
 * through to the cache before the commit so every gateway refuses the key on its next request. A key already
 * reported keeps its first report: nothing is recorded twice.
 */
async function exposeKey(deps: KeysDeps, keyId: string, leak: LeakedSecret): Promise<ApiKey | null> {
  return changeWithOutbox(deps, async (tx: Queryable) => {
    const current = await lockApiKey(tx, keyId);
    if (!current || current.exposedAt) return null;
    const exposed = await markKeyExposed(tx, keyId);
    if (!exposed) return null;
    await recordKeyEvent(tx, 'exposed', exposed, { exposure: { source: leak.source, url: leak.url } });
    await recordKeyChange(tx, deps.actor, 'api_key.exposed', current, exposed);
    return exposed;
  });
}

/**
 * Revokes every key whose current or replaced secret is one of these (secrets are stored as SHA-256, so
 * they are found by hash; the secret itself is never stored or logged). Secrets of no key change nothing.
 */
export async function reportLeakedSecrets(deps: KeysDeps, leaks: readonly LeakedSecret[]): Promise<LeakOutcome[]> {
  const hashes = leaks.map((leak) => hashSecret(leak.secret));
  const found = await findKeyIdsBySecretHashes(deps.db, [...new Set(hashes)]);
  const outcomes: LeakOutcome[] = [];
  for (const [index, leak] of leaks.entries()) {
    const keyIds = [...new Set(found.filter((row) => row.hash === hashes[index]).map((row) => row.id))];
    const exposedNow: string[] = [];
    for (const keyId of keyIds) {
      const exposed = await exposeKey(deps, keyId, leak);
      if (exposed) {
        exposedNow.push(keyId);
        deps.logger.warn({ audit: 'api_key.exposed', keyId, userId: exposed.ownerUserId, source: leak.source }, 'API key exposed: revoked');
      }
    }
    outcomes.push({ keyIds, exposedNow });
  }
  return outcomes;
}
