import type { ApiKeyUsageResponseBody, ApiKeyView, SubscriptionView } from '@acs/contracts';
import type { AccountSummary } from './account-summary.js';

const DAY_MS = 86_400_000;
/** The usage endpoint's longest look back (days). */
const USAGE_MAX_DAYS = 90;

/** What the account can do now and why: the overview's facts, computed from the gateway's answers. */
export interface AccountStatus {
  /** Effective role now (the token's may be older: a trial ends, a subscription starts). */
  role: number;
  subscription: SubscriptionView | null;
  /** Unix seconds, while the trial runs; null otherwise. */
  trialEndsAt: number | null;
  /** The gateway listed the keys (role >= 1), or said no (null: it could not be asked). */
  keysAllowed: boolean | null;
  activeKeys: number;
  revokedKeys: number;
  /** The first day (YYYY-MM-DD, UTC) this period's usage counts from. */
  periodStart: string;
  /** Requests in this period by all the user's keys; null when no usage could be read. */
  periodRequests: number | null;
}

/** The billing period running now, or else the last 30 days (at most what the usage endpoint keeps). */
export function periodStartOf(subscription: SubscriptionView | null, now: number): string {
  const fallback = now - 29 * DAY_MS;
  const start = subscription ? Math.max(Date.parse(subscription.currentPeriodStart), now - (USAGE_MAX_DAYS - 1) * DAY_MS) : fallback;
  return new Date(start).toISOString().slice(0, 10);
}

/** Days to ask the usage endpoint for so that `periodStart` is included. */
export function daysSince(periodStart: string, now: number): number {
  const days = Math.floor((now - Date.parse(`${periodStart}T00:00:00Z`)) / DAY_MS) + 1;
  return Math.min(USAGE_MAX_DAYS, Math.max(1, days));
}

function requestsSince(periodStart: string, usages: readonly ApiKeyUsageResponseBody[]): number {
  let total = 0;
  for (const usage of usages) for (const day of usage.days) if (day.date >= periodStart) total += day.requests;
  return total;
}

export interface StatusInputs {
  account: AccountSummary;
  subscriptions: SubscriptionView[] | null;
  keys: ApiKeyView[] | 'not-allowed' | null;
  usages: ApiKeyUsageResponseBody[] | null;
  now?: number;
}

export function accountStatus({ account, subscriptions, keys, usages, now = Date.now() }: StatusInputs): AccountStatus {
  const subscription = subscriptions?.find((s) => s.status === 'active') ?? null;
  const trialEndsAt = account.trialExpiresAt !== null && account.trialExpiresAt * 1000 > now ? account.trialExpiresAt : null;
  // Admin and SuperAdmin are account roles; Subscriber comes from a subscription or a trial, now.
  const accountRole = account.role >= 2 ? account.role : 0;
  const role = subscription || trialEndsAt ? Math.max(accountRole, 1) : accountRole;
  const listed = Array.isArray(keys) ? keys : [];
  const periodStart = periodStartOf(subscription, now);
  return {
    role,
    subscription,
    trialEndsAt,
    keysAllowed: keys === null ? null : keys !== 'not-allowed',
    activeKeys: listed.filter((k) => !k.revokedAt).length,
    revokedKeys: listed.filter((k) => k.revokedAt).length,
    periodStart,
    periodRequests: usages === null ? null : requestsSince(periodStart, usages),
  };
}
