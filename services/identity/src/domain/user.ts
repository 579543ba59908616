import { effectiveRole, isTrialActive, type AuthzRecord } from '@acs/contracts';

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
  version: number;
  /** Ids of ended sessions whose tokens may still be unexpired (sessions.ts keeps it pruned). */
  endedSessions: string[];
  /** Null until the owner follows the verification link (issue 32). */
  emailVerifiedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
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
    disabled: false,
  };
  // Only when there is one: a user who never ended a session reads the same record as before.
  if (user.endedSessions.length > 0) record.endedSessions = user.endedSessions;
  if (user.emailVerifiedAt === null) record.emailUnverified = true;
  return record;
}

/** Role and trial state at one moment, from the same rules the gateway applies per request. */
export function accessAt(user: User, now: number): { role: number; onTrial: boolean; record: AuthzRecord } {
  const record = toAuthzRecord(user);
  return { role: effectiveRole(record, now), onTrial: isTrialActive(record, now), record };
}
