import { generateApiKey, generateApiSecret, hashSecret, type KeyEnvironment } from '@acs/auth';
import { insertApiKey } from '../data-access/api-keys-repository.js';
import type { ApiKey } from './api-key.js';
import type { KeysDeps } from './deps.js';
import { changeWithWriteThrough } from './write-through.js';

export interface CreateKeyInput {
  name: string;
  scopes: string[];
  ownerUserId: number | null;
  environment: KeyEnvironment;
}

/** Creates a key; the secret exists in clear only in this return value (shown once). */
export async function createApiKey(deps: KeysDeps, input: CreateKeyInput): Promise<{ apiKey: ApiKey; secret: string }> {
  const secret = generateApiSecret();
  const apiKey = await changeWithWriteThrough(deps, (tx) =>
    insertApiKey(tx, {
      key: generateApiKey(deps.keyPrefix, input.environment),
      secretHash: hashSecret(secret),
      name: input.name,
      scopes: input.scopes,
      ownerUserId: input.ownerUserId,
      environment: input.environment,
    }),
  );
  deps.logger.info({ audit: 'api_key.created', keyId: apiKey!.id, userId: input.ownerUserId, scopes: input.scopes }, 'API key created');
  return { apiKey: apiKey!, secret };
}
