import { generateApiKey, generateApiSecret, hashSecret } from '@acs/auth';
import { conflict } from '@acs/errors';
import { countActiveKeysOfOwner, insertApiKey, lockOwnerKeys, type NewApiKey } from '../data-access/api-keys-repository.js';
import type { ApiKey } from './api-key.js';
import type { KeysDeps } from './deps.js';
import { changeWithOutbox, recordKeyLifecycle } from './key-lifecycle.js';

/** A new key as its creator asks for it: the key and its secret are made here. */
export type CreateKeyInput = Omit<NewApiKey, 'key' | 'secretHash'> & {
  /** A user's cap on active keys, checked under a per-owner lock (operators create without one). */
  maxActiveKeysOfOwner?: number;
};

/**
 * The one way a key comes to exist (operators' CLI, the first-start system key, users' POST /api/ApiKeys):
 * inputs already validated by the caller's rules. The secret exists in clear only in this return value.
 */
export async function createApiKey(deps: KeysDeps, input: CreateKeyInput): Promise<{ apiKey: ApiKey; secret: string }> {
  // The key's prefix and environment begin the secret too (docs/key-format.md), so scanners recognise it.
  const key = generateApiKey(deps.keyPrefix, input.environment);
  const secret = generateApiSecret(deps.keyPrefix, input.environment);
  const { ownerUserId, maxActiveKeysOfOwner: max } = input;
  const apiKey = await changeWithOutbox(deps, async (tx) => {
    if (max !== undefined && ownerUserId !== null) {
      await lockOwnerKeys(tx, ownerUserId);
      if ((await countActiveKeysOfOwner(tx, ownerUserId)) >= max)
        throw conflict(`A user can have at most ${max} active API keys; revoke one first`, {
          code: 'key_limit_reached',
          hint: 'Revoke a key you no longer use (DELETE /api/ApiKeys/{id}), then create the new one.',
        });
    }
    const created = await insertApiKey(tx, {
      key,
      secretHash: hashSecret(secret),
      name: input.name,
      scopes: input.scopes,
      ownerUserId,
      environment: input.environment,
      rateLimits: input.rateLimits ?? null,
      expiresAt: input.expiresAt ?? null,
      ipAllowList: input.ipAllowList ?? null,
    });
    await recordKeyLifecycle(tx, deps, 'created', null, created);
    return created;
  });
  deps.logger.info(
    {
      audit: 'api_key.created',
      keyId: apiKey!.id,
      userId: ownerUserId,
      scopes: input.scopes,
      expiresAt: apiKey!.expiresAt?.toISOString() ?? null,
    },
    'API key created',
  );
  return { apiKey: apiKey!, secret };
}
