import { invalidCredentialsError, ipNotAllowedError } from '@acs/errors';
import { keyAccepts, type KeyRecord } from '../auth/key-record.js';
import { clientAddressOf } from './authorize-route.js';
import type { ApiExchange, PipelineDeps, Step } from './exchange.js';
import { refuse } from './refuse.js';

/** The secret check of `record` for this request, run at most once per record (the limiter's guess and the answer usually share it). */
export function secretCheck(ex: ApiExchange, record: KeyRecord): boolean {
  if (ex.secretCheckedOn !== record) {
    ex.secretCheckedOn = record;
    ex.secretAccepted = keyAccepts(record, ex.secret);
  }
  return ex.secretAccepted;
}

/**
 * Layer 1 on the record this request read: the key exists, is not revoked or expired, and the secret
 * matches (401; the answer never says which of these failed). Then, for a key with an IP allow-list only,
 * the client's address is in it (403 ip_not_allowed, counted in the key's usage like any answer to a valid key).
 */
export function authenticateKey(ex: ApiExchange, deps: PipelineDeps): Step {
  const { record } = ex;
  if (record === null || !secretCheck(ex, record)) return refuse(ex, deps, 'api_key', invalidCredentialsError());
  ex.keyPassed = true;
  deps.usage.record(record.id);
  if (record.allowList !== null) {
    ex.clientIp = clientAddressOf(ex, deps, record);
    if (!record.allowList.allows(ex.clientIp)) return refuse(ex, deps, 'ip', ipNotAllowedError());
  }
  return undefined;
}
