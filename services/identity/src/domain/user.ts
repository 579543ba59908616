import {
  AUTHZ_CACHE_TTL_SECONDS,
  ROLE,
  effectiveRole,
  isTrialActive,
  type AuthzRecord,
  type PlanQuota,
  type UserQuota,
} from '@acs/contracts';

/** A stored account. `passwordHash` never leaves the service, in a response, a log line or the cache. */
export interface User {
  id: number;
  /** As the user typed it; unique regardless of case. */
  email: string;
  passwordHash: string;
  firstName: string;
  lastName: string;
  /** 0 Free, 1 Subscriber, 2 Admin, 3 SuperAdmin: what the account holds, before trials and subscriptions. */
  accountRole: number;
  trialEndsAt: Date | null;
  subscriptionEndsAt: Date | null;
  planType: number;
  /** The plan of the (latest) subscription; null when the user never subscribed. */
  planId: string | null;
  /** Quotas by plan id, as read with the row: the user's plan's, 'trial' and 'none' (plan_quotas). */
  quotas: Record<string, PlanQuota>;
  version: number;
  /** Ids of ended sessions whose tokens may still be unexpired (sessions.ts keeps it pruned). */
  endedSessions: string[];
  /** Null until the owner follows the verification link (issue 32). */
  emailVerifiedAt: Date | null;
  /** Set when the owner deleted the account (issue 32): the row is a tombstone without personal data. */
  deletedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** Who the account is, as every view of it shows it (the registration's 201, GET /api/Users/Me): never the hash. */
export function profileOf(user: User): Pick<User, 'id' | 'email' | 'firstName' | 'lastName'> {
  return { id: user.id, email: user.email, firstName: user.firstName, lastName: user.lastName };
}

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);
const unixSeconds = (date: Date | null): number | null => (date === null ? null : Math.floor(date.getTime() / 1000));

/** The projection the gateway reads on every user request (times in Unix seconds). */
export function toAuthzRecord(user: User): AuthzRecord {
  const record: AuthzRecord = {
    userId: user.id,
    accountRole: user.accountRole,
    trialEndsAt: unixSeconds(user.trialEndsAt),
    subscriptionEndsAt: unixSeconds(user.subscriptionEndsAt),
    planType: user.planType,
    disabled: user.deletedAt !== null,
    quota: quotaAt(user, nowSeconds()),
  };
  // Only when there is one: a user who never ended a session reads the same record as before.
  if (user.endedSessions.length > 0) record.endedSessions = user.endedSessions;
  if (user.emailVerifiedAt === null) record.emailUnverified = true;
  return record;
}

/**
 * How long the cached record stays right: its quota (and role) change by themselves when a trial or a
 * subscription ends, with no event, so the entry expires then and the gateway's next request reads
 * the new state from identity.
 */
export function authzRecordTtlSeconds(user: User, now = nowSeconds()): number {
  let ttl = AUTHZ_CACHE_TTL_SECONDS;
  for (const end of [unixSeconds(user.trialEndsAt), unixSeconds(user.subscriptionEndsAt)])
    if (end !== null && end > now) ttl = Math.min(ttl, end - now);
  return Math.max(1, ttl);
}

/**
 * The quota that applies at `now` (issue 29): none for operators (Admin and above); the plan's while
 * subscribed, the trial's during a trial, else the no-subscription one. A plan whose quota identity
 * has not heard of, or a quota without caps, is no quota.
 */
function quotaAt(user: User, now: number): UserQuota | null {
  if (user.accountRole >= ROLE.admin) return null;
  const subscribed = user.subscriptionEndsAt !== null && user.subscriptionEndsAt.getTime() / 1000 > now;
  const trial = user.trialEndsAt !== null && user.trialEndsAt.getTime() / 1000 > now;
  const plan = subscribed ? user.planId : trial ? 'trial' : 'none';
  const quota = plan === null ? undefined : user.quotas[plan];
  if (plan === null || quota === undefined || (quota.perMonth === null && quota.perDay === null)) return null;
  return {
    plan,
    perMonth: quota.perMonth === null ? null : Number(quota.perMonth),
    perDay: quota.perDay === null ? null : Number(quota.perDay),
  };
}

/** Role and trial state at one moment, from the same rules the gateway applies per request. */
export function accessAt(user: User, now: number): { role: number; onTrial: boolean; record: AuthzRecord } {
  const record = toAuthzRecord(user);
  return { role: effectiveRole(record, now), onTrial: isTrialActive(record, now), record };
}
