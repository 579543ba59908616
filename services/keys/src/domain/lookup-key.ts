import { parseApiKey } from '@acs/auth';
import type { ApiKeyCacheRecord } from '@acs/contracts';
import { findApiKeyByKey } from '../data-access/api-keys-repository.js';
import { toCacheRecord } from './api-key.js';
import type { KeysDeps } from './deps.js';
import { cacheApiKey, cacheMissingKey } from './write-through.js';

/** The gateway's cache missed: read the database and refill the cache (or mark the key missing). */
export async function lookupApiKeyForGateway(deps: KeysDeps, key: string): Promise<ApiKeyCacheRecord | null> {
  if (!parseApiKey(key)) return null;
  const apiKey = await findApiKeyByKey(deps.db, key);
  if (!apiKey) {
    await cacheMissingKey(deps, key);
    return null;
  }
  await cacheApiKey(deps, apiKey);
  return toCacheRecord(apiKey);
}
