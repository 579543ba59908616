import { describe, expect, it } from '@jest/globals';
import type { AuthzRecord } from '@acs/contracts';
import { userRefusal } from '../src/auth/user-check.js';

const NOW = 1_800_000_000;
const user = (changes: Partial<AuthzRecord> = {}): AuthzRecord => ({
  userId: 1,
  accountRole: 0,
  trialEndsAt: null,
  subscriptionEndsAt: null,
  planType: 0,
  disabled: false,
  ...changes,
});

describe('userRefusal: which 403 code a user route answers', () => {
  it('token_required for no record or a disabled account', () => {
    expect(userRefusal(null, 0, NOW)).toBe('token_required');
    expect(userRefusal(user({ disabled: true, accountRole: 3 }), 0, NOW)).toBe('token_required');
  });
  it('subscription_required when the role is 0 because no subscription or trial is active', () => {
    expect(userRefusal(user(), 1, NOW)).toBe('subscription_required');
    expect(userRefusal(user({ trialEndsAt: NOW - 1, subscriptionEndsAt: NOW }), 1, NOW)).toBe('subscription_required');
  });
  it('role_too_low when an active subscription or trial still falls short of the route', () => {
    expect(userRefusal(user({ subscriptionEndsAt: NOW + 60 }), 2, NOW)).toBe('role_too_low');
    expect(userRefusal(user({ accountRole: 1 }), 3, NOW)).toBe('role_too_low');
  });
  it('null when the effective role reaches the route', () => {
    expect(userRefusal(user(), 0, NOW)).toBeNull();
    expect(userRefusal(user({ trialEndsAt: NOW + 60 }), 1, NOW)).toBeNull();
  });
});
