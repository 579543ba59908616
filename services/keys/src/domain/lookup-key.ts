import { parseApiKey } from '@acs/auth';
import type { ApiKeyCacheRecord } from '@acs/contracts';
import { findApiKeyByKey } from '../data-access/api-keys-repository.js';
import { toCacheRecord } from './api-key.js';
import type { KeysDeps } from './deps.js';
import { cacheApiKey, cacheMissingKey } from './write-through.js';

/**
 * The gateway's cache missed, or its cache is down and it asks us instead: answer from the
 * database, which is always current, and refill the cache (or mark the key missing). The refill
 * is best effort: during a Redis outage it fails, and failing the lookup as well would turn the
 * gateway's fallback into an outage of every API call.
 */
export async function lookupApiKeyForGateway(deps: KeysDeps, key: string): Promise<ApiKeyCacheRecord | null> {
  if (!parseApiKey(key)) return null;
  const apiKey = await findApiKeyByKey(deps.db, key);
  if (!apiKey) {
    await cacheMissingKey(deps, key).catch((err: unknown) => deps.logger.warn({ err }, 'could not cache a missing-key marker'));
    return null;
  }
  await cacheApiKey(deps, apiKey).catch((err: unknown) => deps.logger.warn({ err, keyId: apiKey.id }, 'could not refill the key cache'));
  return toCacheRecord(apiKey);
}
