import { signContext } from '@acs/auth';
import { KEY_LOOKUP_PATH, keyLookupResponseSchema, type ApiKeyCacheRecord } from '@acs/contracts';
import type { Upstream } from '../proxy/upstreams.js';
import { upstreamError } from '../proxy/upstream-errors.js';

/** Cache miss: ask the keys service, which reads its database and refills the cache. */
export function createKeysClient(keys: Upstream, internalSecret: string) {
  return async function lookupKey(key: string, requestId: string): Promise<ApiKeyCacheRecord | null> {
    const { context, signature } = signContext(internalSecret, 'POST', KEY_LOOKUP_PATH, { requestId, keyId: null, scopes: [] });
    let response;
    try {
      response = await keys.pool.request({
        path: KEY_LOOKUP_PATH,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': requestId, 'x-acs-context': context, 'x-acs-signature': signature },
        body: JSON.stringify({ key }),
      });
    } catch (err) {
      throw upstreamError('keys', err);
    }
    const body: unknown = await response.body.json().catch(() => null);
    if (response.statusCode !== 200) throw upstreamError('keys', new Error(`key lookup answered ${response.statusCode}`));
    const parsed = keyLookupResponseSchema.safeParse(body);
    if (!parsed.success) throw upstreamError('keys', new Error('key lookup answered an unexpected body'));
    return parsed.data.record;
  };
}
