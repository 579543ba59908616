import { invalidCredentialsError } from '@acs/errors';
import { keyAccepts, type KeyRecord } from '../auth/key-record.js';
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
 * matches (401). The answer never says which of these failed.
 */
export function authenticateKey(ex: ApiExchange, deps: PipelineDeps): Step {
  const { record } = ex;
  if (record === null || !secretCheck(ex, record)) return refuse(ex, deps, 'api_key', invalidCredentialsError());
  ex.keyPassed = true;
  deps.usage.record(record.id);
  return undefined;
}
