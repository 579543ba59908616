import type { RateLimits } from '@acs/contracts';
import { notFound } from '@acs/errors';
import { updateApiKey } from '../data-access/api-keys-repository.js';
import type { ApiKey } from './api-key.js';
import type { KeysDeps } from './deps.js';
import { changeWithWriteThrough } from './write-through.js';

/** Scope, name or rate-limit change (null: back to the default); effective on the gateway's very next request. */
export async function changeApiKey(deps: KeysDeps, id: string, changes: { scopes?: string[]; name?: string; rateLimits?: RateLimits | null }): Promise<ApiKey> {
  const changed = await changeWithWriteThrough(deps, (tx) => updateApiKey(tx, id, changes));
  if (!changed) throw notFound('No such API key');
  deps.logger.info({ audit: 'api_key.changed', keyId: id, userId: changed.ownerUserId, scopes: changed.scopes, rateLimits: changed.rateLimits }, 'API key changed');
  return changed;
}

/** Revocation keeps the record (for the owner's history) and stops the key on the next request. */
export async function revokeApiKey(deps: KeysDeps, id: string): Promise<ApiKey> {
  const revoked = await changeWithWriteThrough(deps, (tx) => updateApiKey(tx, id, { revoke: true }));
  if (!revoked) throw notFound('No such API key');
  deps.logger.info({ audit: 'api_key.revoked', keyId: id, userId: revoked.ownerUserId }, 'API key revoked');
  return revoked;
}
