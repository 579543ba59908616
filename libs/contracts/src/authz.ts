import { z } from 'zod';
import { userQuotaSchema } from './quota.js';
import { ROLE } from './roles.js';

/**
 * The per-user authorization record identity writes through to Redis on every change and the
 * gateway reads on every user request, so the effective role is computed from the user's
 * *current* state (docs/architecture.md, decision 3), never copied from a token.
 */
export const authzRecordSchema = z.object({
  userId: z.number().int().positive(),
  /** 0 Free, 1 Subscriber, 2 Admin, 3 SuperAdmin. */
  accountRole: z.number().int().min(0).max(3),
  /** Unix seconds; null when the user never had a trial or it was cancelled. */
  trialEndsAt: z.number().int().nullable(),
  /** Unix seconds; null when there is no subscription; Lifetime is a far-future value. */
  subscriptionEndsAt: z.number().int().nullable(),
  /** 0 Free, 1 Monthly, 2 Yearly, 3 Lifetime (the plan of the current subscription). */
  planType: z.number().int().min(0).max(3),
  /** A disabled or deleted account: its tokens stop working on the next request. */
  disabled: z.boolean(),
  /** The plan quota that applies now (issue 29); absent or null: no quota (records written before quotas, operators). */
  quota: userQuotaSchema.nullable().optional(),
  /**
   * Ids of the user's sessions ended while their token may still be unexpired (issue 32): a token whose
   * `sid` is here is refused. Pruned as the tokens age out; absent when empty, so most records do not grow.
   */
  endedSessions: z.array(z.string()).optional(),
  /** Present (true) while the account's e-mail address is not verified (issue 32); absent once it is. */
  emailUnverified: z.literal(true).optional(),
});
export type AuthzRecord = z.infer<typeof authzRecordSchema>;

/** `authz:{<userId>}`: a hash tag of its own (Redis Cluster), read beside the key's slot in the same write. */
export const authzCacheKey = (userId: number): string => `authz:{${userId}}`;
export const AUTHZ_CACHE_TTL_SECONDS = 24 * 3600;

/** Gateway-to-identity on a cache miss: POST with {userId}; identity refills the cache. */
export const AUTHZ_LOOKUP_PATH = '/internal/users/authz';
export const authzLookupRequestSchema = z.object({ userId: z.number().int().positive() });
export const authzLookupResponseSchema = z.object({ record: authzRecordSchema.nullable() });

/** The spec's effective role: the highest of the account role, Subscriber during a trial, Subscriber while subscribed. */
export function effectiveRole(record: AuthzRecord, nowSeconds: number): number {
  let role = record.accountRole;
  if (record.trialEndsAt !== null && record.trialEndsAt > nowSeconds) role = Math.max(role, ROLE.subscriber);
  if (record.subscriptionEndsAt !== null && record.subscriptionEndsAt > nowSeconds) role = Math.max(role, ROLE.subscriber);
  return role;
}

export const isTrialActive = (record: AuthzRecord, nowSeconds: number): boolean =>
  record.trialEndsAt !== null && record.trialEndsAt > nowSeconds;
const isSubscriptionActive = (record: AuthzRecord, nowSeconds: number): boolean =>
  record.subscriptionEndsAt !== null && record.subscriptionEndsAt > nowSeconds;

/** plan_type as the JWT carries it: the plan while a subscription is active, else Free (0). */
export const currentPlanType = (record: AuthzRecord, nowSeconds: number): number =>
  isSubscriptionActive(record, nowSeconds) ? record.planType : 0;
