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
  /** From this instant the key answers 401; null: it does not expire. */
  expiresAt: Date | null;
  /** After a roll: the replaced secret's hash, accepted until previousSecretEndsAt; null outside a grace period. */
  previousSecretHash: string | null;
  previousSecretEndsAt: Date | null;
  /** Why the key was revoked when nobody chose to: 'exposed' (a leak report named its secret); null otherwise. */
  revokedReason: 'exposed' | null;
  /** When a leak report (or an operator's report-leak) first named its secret; null: never. */
  exposedAt: Date | null;
  /** CIDR ranges the key may be used from (issue 31.3); null: any address. */
  ipAllowList: string[] | null;
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
    // Instants the gateway compares with its own clock, so expiry and the end of a grace period
    // need no scheduler and no cache invalidation. Absent when unset: the common key pays nothing.
    ...(apiKey.expiresAt ? { expiresAtMs: apiKey.expiresAt.getTime() } : {}),
    ...(apiKey.previousSecretHash && apiKey.previousSecretEndsAt && apiKey.previousSecretEndsAt.getTime() > Date.now()
      ? { previousSecretHash: apiKey.previousSecretHash, previousSecretEndsAtMs: apiKey.previousSecretEndsAt.getTime() }
      : {}),
    // Only when set: a key without a list costs the gateway nothing.
    ...(apiKey.ipAllowList ? { ipAllowList: apiKey.ipAllowList } : {}),
  };
}
