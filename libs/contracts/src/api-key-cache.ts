import { z } from 'zod';
import { rateLimitsSchema } from './rate-limits.js';

/**
 * The projection of an API key that the keys service writes through to Redis and the gateway
 * reads on every request (docs/architecture.md, decision 3). Only what layer 1 needs: no name, no dates.
 */
export const apiKeyCacheRecordSchema = z.object({
  id: z.string(),
  secretHash: z.string(),
  scopes: z.array(z.string()),
  ownerUserId: z.number().int().nullable(),
  revoked: z.boolean(),
  /** The key's own windows; absent or null: the gateway's default for the key's environment. */
  rateLimits: rateLimitsSchema.nullable().optional(),
  /** Unix milliseconds from which the key answers 401 (the gateway compares it with its clock); absent: never. */
  expiresAtMs: z.number().int().optional(),
  /** After a roll, during the grace period only: the replaced secret's hash and when it stops working (Unix ms). */
  previousSecretHash: z.string().optional(),
  previousSecretEndsAtMs: z.number().int().optional(),
  /** The CIDR ranges the key may be used from (issue 31.3); absent: any address (the common key carries no bytes). */
  ipAllowList: z.array(z.string()).optional(),
});
export type ApiKeyCacheRecord = z.infer<typeof apiKeyCacheRecordSchema>;

/** Stored for keys that do not exist, so unknown keys don't reach the database on every try. */
export const MISSING_KEY_MARKER = '"missing"';
export const MISSING_KEY_TTL_SECONDS = 60;
/** Entries expire so the cache stays bounded; a miss is refilled from the keys service. */
export const API_KEY_CACHE_TTL_SECONDS = 24 * 3600;

/**
 * `apikey:{<key>}`: the braces are a Redis Cluster hash tag, so the key record and its limiter state
 * (`ratelimit:{<key>}`) live in one slot and the gateway's per-request script may touch both.
 */
export const apiKeyCacheKey = (apiKey: string): string => `apikey:{${apiKey}}`;
/** The key's limiter state (one hash per key): same hash tag as its record. */
export const rateLimitCacheKey = (apiKey: string): string => `ratelimit:{${apiKey}}`;

/** Gateway-to-keys lookup on a cache miss: POST /internal/keys/lookup. */
export const KEY_LOOKUP_PATH = '/internal/keys/lookup';
export const keyLookupRequestSchema = z.object({ key: z.string().min(1).max(200) });
export const keyLookupResponseSchema = z.object({ record: apiKeyCacheRecordSchema.nullable() });
export type KeyLookupResponse = z.infer<typeof keyLookupResponseSchema>;
