// Users' actions on their own keys (/api/ApiKeys, through the gateway with the user's JWT): assignable
// scopes only, someone else's key answered like a missing one. Operators' actions are in operator-keys.ts.
import type { KeyEnvironment } from '@acs/auth';
import type { ApiKeyUsageResponseBody, RateLimits } from '@acs/contracts';
import { type AppError, conflict, notFound } from '@acs/errors';
import { findApiKeyById, listApiKeys, lockApiKey, updateApiKey } from '../data-access/api-keys-repository.js';
import { recordKeyChange } from '../events/keys-audit.js';
import type { ApiKey } from './api-key.js';
import { createApiKey } from './create-key.js';
import type { KeysDeps } from './deps.js';
import { userKeyExpiry } from './expiry-rules.js';
import { revokeKey } from './revoke-key.js';
import { rollApiKey } from './roll-key.js';
import { dailyUsage } from './usage.js';
import { assertWithinCeiling } from './rate-limit-rules.js';
import { parseUserScopes } from './scope-rules.js';
import { changeWithWriteThrough } from './write-through.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const noSuchKey = (): AppError => notFound('No such API key', 'key_not_found');

export function listUserKeys(deps: KeysDeps, userId: number): Promise<ApiKey[]> {
  return listApiKeys(deps.db, { ownerUserId: userId });
}

/** What a user may do with their keys: how many, the most generous rate limits, the longest lifetime. */
export interface UserKeyRules {
  keysPerUser: number;
  rateLimitCeiling: RateLimits | null;
  /** KEY_MAX_LIFETIME_DAYS; null: no maximum. */
  maxLifetimeDays: number | null;
  /** REQUIRE_VERIFIED_EMAIL_FOR_KEYS (issue 32); unset: false. */
  requireVerifiedEmail?: boolean;
}

/** A user's new key: assignable scopes only, at most `keysPerUser` active keys, limits within the ceiling, expiry within the maximum. */
export function createUserKey(
  deps: KeysDeps,
  userId: number,
  input: {
    name: string;
    scopes: string;
    environment: KeyEnvironment;
    rateLimits?: RateLimits | null | undefined;
    expiresAt?: string | null | undefined;
    ipAllowList?: string[] | null | undefined;
  },
  rules: UserKeyRules,
): Promise<{ apiKey: ApiKey; secret: string }> {
  const scopes = parseUserScopes(input.scopes);
  assertWithinCeiling(input.rateLimits, rules.rateLimitCeiling);
  const expiresAt = userKeyExpiry(input.expiresAt, rules.maxLifetimeDays);
  return createApiKey(deps, {
    name: input.name,
    scopes,
    ownerUserId: userId,
    environment: input.environment,
    rateLimits: input.rateLimits ?? null,
    expiresAt,
    ipAllowList: input.ipAllowList ?? null,
    maxActiveKeysOfOwner: rules.keysPerUser,
  });
}

/** A new secret for the caller's own key (the same ownership rule as a change: someone else's key is 404). */
export function rollUserKey(
  deps: KeysDeps,
  userId: number,
  keyId: string,
  graceSeconds: number,
): Promise<{ apiKey: ApiKey; secret: string }> {
  if (!UUID.test(keyId)) throw noSuchKey();
  return rollApiKey(deps, keyId, graceSeconds, (apiKey) => apiKey.ownerUserId === userId, noSuchKey);
}

/** The caller's own key's requests per UTC day for the last `days` days, today included, oldest first, gaps as zero. */
export async function userKeyUsage(deps: KeysDeps, userId: number, keyId: string, days: number): Promise<ApiKeyUsageResponseBody> {
  const key = await ownedKey(deps, userId, keyId);
  return dailyUsage(deps, key.id, days);
}

/** The caller's own key; any other id (someone else's, unknown, not a UUID) is 404. */
export async function ownedKey(deps: Pick<KeysDeps, 'db'>, userId: number, keyId: string): Promise<ApiKey> {
  if (!UUID.test(keyId)) throw noSuchKey();
  const existing = await findApiKeyById(deps.db, keyId);
  if (!existing || existing.ownerUserId !== userId) throw noSuchKey();
  return existing;
}

/** Scope, name or rate-limit change of the caller's own key; someone else's key is indistinguishable from a missing one (404). */
export async function changeUserKey(
  deps: KeysDeps,
  userId: number,
  keyId: string,
  changes: {
    scopes?: string | undefined;
    name?: string | undefined;
    rateLimits?: RateLimits | null | undefined;
    ipAllowList?: string[] | null | undefined;
  },
  rateLimitCeiling: RateLimits | null,
): Promise<ApiKey> {
  if (!UUID.test(keyId)) throw noSuchKey();
  const scopes = changes.scopes === undefined ? undefined : parseUserScopes(changes.scopes);
  assertWithinCeiling(changes.rateLimits, rateLimitCeiling);
  const changed = await changeWithWriteThrough(deps, async (tx) => {
    const current = await lockApiKey(tx, keyId);
    if (!current || current.ownerUserId !== userId) throw noSuchKey();
    if (current.revokedAt) throw conflict('The key is revoked; create a new one', { code: 'key_revoked' });
    const updated = await updateApiKey(tx, keyId, {
      ...(scopes ? { scopes } : {}),
      ...(changes.name ? { name: changes.name } : {}),
      ...(changes.rateLimits !== undefined ? { rateLimits: changes.rateLimits } : {}),
      ...(changes.ipAllowList !== undefined ? { ipAllowList: changes.ipAllowList } : {}),
    });
    if (updated) await recordKeyChange(tx, deps.actor, 'api_key.changed', current, updated);
    return updated;
  });
  deps.logger.info(
    {
      audit: 'api_key.changed',
      keyId,
      userId,
      scopes: changed!.scopes,
      rateLimits: changed!.rateLimits,
      ipAllowList: changed!.ipAllowList,
    },
    'API key changed',
  );
  return changed!;
}

/** Revocation by the owner; revoking a revoked key answers the same record. */
export async function revokeUserKey(deps: KeysDeps, userId: number, keyId: string): Promise<ApiKey> {
  if (!UUID.test(keyId)) throw noSuchKey();
  const revoked = await revokeKey(deps, keyId, (apiKey) => apiKey.ownerUserId === userId);
  if (!revoked) throw noSuchKey();
  deps.logger.info({ audit: 'api_key.revoked', keyId, userId }, 'API key revoked');
  return revoked!;
}
