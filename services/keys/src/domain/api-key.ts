import type { ApiKeyCacheRecord, RateLimits } from '@acs/contracts';
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
  /** The key's own rate limits; null: the gateway's default for its environment. */
  rateLimits: RateLimits | null;
}

export function toCacheRecord(apiKey: ApiKey): ApiKeyCacheRecord {
  return {
    id: apiKey.id,
    secretHash: apiKey.secretHash,
    scopes: apiKey.scopes,
    ownerUserId: apiKey.ownerUserId,
    revoked: apiKey.revokedAt !== null,
    // Only when set, so keys on the default carry no extra bytes on the gateway's hot path.
    ...(apiKey.rateLimits ? { rateLimits: apiKey.rateLimits } : {}),
  };
}

/** What a listing shows: everything but the hash. */
export type ApiKeySummary = Omit<ApiKey, 'secretHash' | 'version'>;

export function toSummary({ secretHash: _hash, version: _version, ...summary }: ApiKey): ApiKeySummary {
  return summary;
}
