import { describe, expect, it } from '@jest/globals';
import { describeActivity, type AuditItem } from '../src/pages/activity-labels.js';
import { activityHref, activityPage } from '../src/pages/activity-page.js';

// Issue 30: the activity page says each entry of the user's trail in words, and shows only what it names.
const item = (overrides: Partial<AuditItem>): AuditItem => ({
  service: 'keys',
  occurredAt: '2026-11-27T10:05:00.000Z',
  actor: { type: 'user', id: '7', requestId: 'req-1', clientAddress: '198.51.100.7' },
  action: 'api_key.created',
  targetType: 'api_key',
  targetId: '0b6c5e1a-0000-4000-8000-000000000001',
  before: null,
  after: { name: 'studio app', scopes: ['read:devices'] },
  ...overrides,
});
const chrome = { csrfToken: 'csrf', signedIn: true, path: '/activity' };

describe('activity labels', () => {
  it.each([
    [{ action: 'api_key.created' }, 'API key “studio app” created'],
    [{ action: 'api_key.rolled' }, 'API key “studio app”: secret rolled'],
    [{ action: 'api_key.revoked' }, 'API key “studio app” revoked'],
    [
      { action: 'api_key.expired', actor: { type: 'system', id: 'keys expiry sweep', requestId: null, clientAddress: null } },
      'API key “studio app” expired',
    ],
    [{ action: 'api_key.changed', after: null }, 'An API key changed'],
    [{ service: 'identity', action: 'account.created', targetType: 'account', after: { email: 'a@example.com' } }, 'Account created'],
    [{ service: 'identity', action: 'account.role_changed', targetType: 'account', after: { accountRole: 2 } }, 'Role changed to Admin'],
    [
      { service: 'identity', action: 'account.subscription_changed', targetType: 'account', after: { planType: 1 } },
      'Plan changed to Monthly',
    ],
    [
      { service: 'billing', action: 'subscription.activated', targetType: 'subscription', after: { planId: 'monthly' } },
      'Subscription (monthly) started',
    ],
    [
      { service: 'billing', action: 'subscription.canceled', targetType: 'subscription', after: { planId: 'yearly' } },
      'Subscription (yearly) canceled',
    ],
    [
      { service: 'identity', action: 'session.created', targetType: 'session', after: { device: 'Firefox on Linux' } },
      'Signed in from Firefox on Linux',
    ],
    [
      { service: 'identity', action: 'session.ended', targetType: 'session', after: { device: 'Safari on iOS', reason: 'signed_out' } },
      'Signed out: Safari on iOS',
    ],
    [
      {
        service: 'identity',
        action: 'session.ended',
        targetType: 'session',
        after: { device: 'Chrome on Android', reason: 'password_reset' },
      },
      'Session ended by a password reset: Chrome on Android',
    ],
    [
      { service: 'identity', action: 'session.ended', targetType: 'session', after: { reason: 'something new' } },
      'Session ended: an unknown device',
    ],
    [{ service: 'webhooks', action: 'webhook.created', targetType: 'webhook' }, 'webhook.created'],
  ] as [Partial<AuditItem>, string][])('%j reads “%s”', (overrides, label) => {
    expect(describeActivity(item(overrides))).toBe(label);
  });
});

describe('the activity page', () => {
  it('lists each entry in words, who, from where and its target; never a field of a view it does not name', () => {
    const page = activityPage(
      chrome,
      { family: null, target: '', cursor: null },
      {
        items: [
          item({ after: { name: '<b>app</b>', secretHash: 'sha256-should-never-show', scopes: ['read:devices'] } }),
          item({
            action: 'account.trial_changed',
            targetType: 'account',
            targetId: '7',
            actor: { type: 'operator', id: 'alice via users cli', requestId: null, clientAddress: null },
          }),
        ],
        nextCursor: '1764237900000_42',
      },
    ).value;
    expect(page).toContain('API key “&lt;b&gt;app&lt;/b&gt;” created');
    expect(page).not.toContain('sha256-should-never-show');
    expect(page).not.toContain('alice'); // an operator is "An operator", not their login
    expect(page).toContain('<td data-label="By">An operator</td>');
    expect(page).toContain('<td data-label="From">198.51.100.7</td>');
    expect(page).toContain('2026-11-27 10:05 UTC');
    expect(page).toContain('<a href="/activity?cursor=1764237900000_42" rel="next">Older entries</a>');
    expect(page).not.toContain('Newest entries');
  });

  it('keeps the filters in the pager links and the form, and says when nothing matches', () => {
    const query = { family: 'api_key' as const, target: 'key 1&x', cursor: '1764237900000_42' };
    expect(activityHref(query, '1764237800000_40')).toBe('/activity?family=api_key&target=key+1%26x&cursor=1764237800000_40');
    const page = activityPage(chrome, query, { items: [], nextCursor: null }).value;
    expect(page).toContain('No activity matches these filters.');
    expect(page).toContain('<option value="api_key" selected>API keys</option>');
    expect(page).toContain('value="key 1&amp;x"');
    expect(page).toContain('<a href="/activity?family=api_key&amp;target=key+1%26x">Newest entries</a>');
    expect(page).not.toContain('Older entries');
  });
});
