import { AUTHZ_LOOKUP_PATH, authzLookupResponseSchema, type AuthzRecord } from '@acs/contracts';
import type { Upstream } from '../proxy/upstreams.js';
import { internalCall } from './internal-call.js';

/** Cache miss: ask identity, which reads its database and refills the cache. */
export function createAuthzClient(identity: Upstream, internalSecret: string) {
  return async function lookupAuthz(userId: number, requestId: string): Promise<AuthzRecord | null> {
    return (await internalCall(identity, internalSecret, 'POST', AUTHZ_LOOKUP_PATH, requestId, authzLookupResponseSchema, { userId }))
      .record;
  };
}
