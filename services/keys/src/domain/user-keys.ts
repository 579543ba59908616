import { generateApiKey, generateApiSecret, hashSecret, type KeyEnvironment } from '@acs/auth';
import type { RateLimits } from '@acs/contracts';
import { AppError, conflict, notFound } from '@acs/errors';
import { countActiveKeysOfOwner, findApiKeyById, insertApiKey, listApiKeys, lockApiKey, lockOwnerKeys, updateApiKey } from '../data-access/api-keys-repository.js';
import type { ApiKey } from './api-key.js';
import type { KeysDeps } from './deps.js';
import { assertWithinCeiling } from './rate-limit-rules.js';
import { parseUserScopes } from './scope-rules.js';
import { changeWithWriteThrough } from './write-through.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const noSuchKey = (): AppError => notFound('No such API key');

export function listUserKeys(deps: KeysDeps, userId: number): Promise<ApiKey[]> {
  return listApiKeys(deps.db, { ownerUserId: userId });
}

/** What a user may do with their keys: how many, and the most generous rate limits they may give one. */
export interface UserKeyRules {
  keysPerUser: number;
  rateLimitCeiling: RateLimits | null;
}

/** A user's new key: assignable scopes only, at most `keysPerUser` active keys (checked under a per-user lock), limits within the ceiling. */
export async function createUserKey(
  deps: KeysDeps,
  userId: number,
  input: { name: string; scopes: string; environment: KeyEnvironment; rateLimits?: RateLimits | null | undefined },
  rules: UserKeyRules,
): Promise<{ apiKey: ApiKey; secret: string }> {
  const scopes = parseUserScopes(input.scopes);
  assertWithinCeiling(input.rateLimits, rules.rateLimitCeiling);
  const limit = rules.keysPerUser;
  const secret = generateApiSecret();
  const apiKey = await changeWithWriteThrough(deps, async (tx) => {
    await lockOwnerKeys(tx, userId);
    if ((await countActiveKeysOfOwner(tx, userId)) >= limit) throw conflict(`A user can have at most ${limit} active API keys; revoke one first`);
    return insertApiKey(tx, {
      key: generateApiKey(deps.keyPrefix, input.environment),
      secretHash: hashSecret(secret),
      name: input.name,
      scopes,
      ownerUserId: userId,
      environment: input.environment,
      rateLimits: input.rateLimits ?? null,
    });
  });
  deps.logger.info({ audit: 'api_key.created', keyId: apiKey!.id, userId, scopes }, 'API key created');
  return { apiKey: apiKey!, secret };
}

/** Scope, name or rate-limit change of the caller's own key; someone else's key is indistinguishable from a missing one (404). */
export async function changeUserKey(
  deps: KeysDeps,
  userId: number,
  keyId: string,
  changes: { scopes?: string | undefined; name?: string | undefined; rateLimits?: RateLimits | null | undefined },
  rateLimitCeiling: RateLimits | null,
): Promise<ApiKey> {
  if (!UUID.test(keyId)) throw noSuchKey();
  const scopes = changes.scopes === undefined ? undefined : parseUserScopes(changes.scopes);
  assertWithinCeiling(changes.rateLimits, rateLimitCeiling);
  const changed = await changeWithWriteThrough(deps, async (tx) => {
    const current = await lockApiKey(tx, keyId);
    if (!current || current.ownerUserId !== userId) throw noSuchKey();
    if (current.revokedAt) throw conflict('The key is revoked; create a new one');
    return updateApiKey(tx, keyId, {
      ...(scopes ? { scopes } : {}),
      ...(changes.name ? { name: changes.name } : {}),
      ...(changes.rateLimits !== undefined ? { rateLimits: changes.rateLimits } : {}),
    });
  });
  deps.logger.info({ audit: 'api_key.changed', keyId, userId, scopes: changed!.scopes, rateLimits: changed!.rateLimits }, 'API key changed');
  return changed!;
}

/** Revocation by the owner; revoking a revoked key answers the same record. */
export async function revokeUserKey(deps: KeysDeps, userId: number, keyId: string): Promise<ApiKey> {
  if (!UUID.test(keyId)) throw noSuchKey();
  const existing = await findApiKeyById(deps.db, keyId);
  if (!existing || existing.ownerUserId !== userId) throw noSuchKey();
  if (existing.revokedAt) return existing;
  const revoked = await changeWithWriteThrough(deps, (tx) => updateApiKey(tx, keyId, { revoke: true }));
  deps.logger.info({ audit: 'api_key.revoked', keyId, userId }, 'API key revoked');
  return revoked!;
}
