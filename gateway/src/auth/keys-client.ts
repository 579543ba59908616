import { KEY_LOOKUP_PATH, keyLookupResponseSchema, type ApiKeyCacheRecord } from '@acs/contracts';
import type { Upstream } from '../proxy/upstreams.js';
import { internalCall } from './internal-call.js';

/** Cache miss: ask the keys service, which reads its database and refills the cache. */
export function createKeysClient(keys: Upstream, internalSecret: string) {
  return async function lookupKey(key: string, requestId: string): Promise<ApiKeyCacheRecord | null> {
    return (await internalCall(keys, internalSecret, 'POST', KEY_LOOKUP_PATH, requestId, keyLookupResponseSchema, { key })).record;
  };
}
