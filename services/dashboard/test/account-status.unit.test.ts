import { describe, expect, it } from '@jest/globals';
import type { ApiKeyView, SubscriptionView } from '@acs/contracts';
import { accountStatus, daysSince, periodStartOf } from '../src/account/account-status.js';
import type { AccountSummary } from '../src/account/account-summary.js';

const NOW = Date.parse('2026-11-26T12:00:00Z');
const account = (overrides: Partial<AccountSummary> = {}): AccountSummary => ({
  userId: '7',
  email: 'a@example.com',
  role: 1,
  planType: 0,
  trialExpiresAt: null,
  expiresAt: NOW / 1000 + 3600,
  ...overrides,
});
const subscription = (overrides: Partial<SubscriptionView> = {}): SubscriptionView => ({
  id: '00000000-0000-4000-8000-000000000001',
  planId: 'monthly',
  planType: 1,
  status: 'active',
  currentPeriodStart: '2026-11-10T08:00:00Z',
  currentPeriodEnd: '2026-12-10T08:00:00Z',
  cancelAtPeriodEnd: false,
  createdAt: '2026-11-10T08:00:00Z',
  endedAt: null,
  ...overrides,
});
const key = (revokedAt: string | null): ApiKeyView => ({
  id: 'k',
  name: 'k',
  key: 'acs_live_x',
  scopes: '',
  environment: 'live',
  createdAt: '2026-11-01T00:00:00Z',
  lastUsedAt: null,
  revokedAt,
  revokedReason: null,
  exposedAt: null,
  rateLimits: null,
  expiresAt: null,
  graceEndsAt: null,
  ipAllowList: null,
});
const day = (date: string, requests: number) => ({ date, requests, byStatus: { '2xx': requests, '3xx': 0, '4xx': 0, '429': 0, '5xx': 0 } });

describe('what the account can do now', () => {
  it('takes the role from what runs now, not from the token: a trial that ended is Free, a subscription is Subscriber, Admin stays', () => {
    const ended = account({ role: 1, trialExpiresAt: NOW / 1000 - 60 });
    expect(accountStatus({ account: ended, subscriptions: [], keys: 'not-allowed', usages: null, now: NOW })).toMatchObject({
      role: 0,
      trialEndsAt: null,
      keysAllowed: false,
    });
    const subscribed = accountStatus({ account: account({ role: 0 }), subscriptions: [subscription()], keys: [], usages: [], now: NOW });
    expect(subscribed).toMatchObject({ role: 1, keysAllowed: true });
    expect(subscribed.subscription?.planId).toBe('monthly');
    expect(accountStatus({ account: account({ role: 2 }), subscriptions: [], keys: [], usages: [], now: NOW }).role).toBe(2);
    const trial = accountStatus({
      account: account({ role: 1, trialExpiresAt: NOW / 1000 + 86_400 }),
      subscriptions: null,
      keys: null,
      usages: null,
      now: NOW,
    });
    expect(trial).toMatchObject({ role: 1, keysAllowed: null, periodRequests: null });
  });

  it("counts keys in use and this period's requests: from the period's first day with a subscription, else the last 30 days", () => {
    expect(periodStartOf(subscription(), NOW)).toBe('2026-11-10');
    expect(periodStartOf(null, NOW)).toBe('2026-10-28');
    expect(periodStartOf(subscription({ currentPeriodStart: '2020-01-01T00:00:00Z' }), NOW)).toBe('2026-08-29'); // the usage kept: 90 days
    expect(daysSince('2026-11-10', NOW)).toBe(17);
    expect(daysSince('2020-01-01', NOW)).toBe(90);
    const status = accountStatus({
      account: account(),
      subscriptions: [subscription({ status: 'replaced' }), subscription()],
      keys: [key(null), key(null), key('2026-11-20T00:00:00Z')],
      usages: [{ days: [day('2026-11-09', 100), day('2026-11-10', 5), day('2026-11-26', 7)] }, { days: [day('2026-11-11', 1)] }],
      now: NOW,
    });
    expect(status).toMatchObject({ activeKeys: 2, revokedKeys: 1, periodStart: '2026-11-10', periodRequests: 13 });
  });
});
