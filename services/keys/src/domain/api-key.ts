import type { ApiKeyCacheRecord } from '@acs/contracts';
import type { KeyEnvironment } from '@acs/auth';

/** A stored API key. `secretHash` never leaves the service except in the gateway's cache projection. */
export interface ApiKey {
  id: string;
  key: string;
  secretHash: string;
  name: string;
  scopes: string[];
  ownerUserId: number | null;
  environment: KeyEnvironment;
  createdAt: Date;
  updatedAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  version: number;
}

export function toCacheRecord(apiKey: ApiKey): ApiKeyCacheRecord {
  return {
    id: apiKey.id,
    secretHash: apiKey.secretHash,
    scopes: apiKey.scopes,
    ownerUserId: apiKey.ownerUserId,
    revoked: apiKey.revokedAt !== null,
  };
}

/** What a listing shows: everything but the hash. */
export type ApiKeySummary = Omit<ApiKey, 'secretHash' | 'version'>;

export function toSummary({ secretHash: _hash, version: _version, ...summary }: ApiKey): ApiKeySummary {
  return summary;
}
