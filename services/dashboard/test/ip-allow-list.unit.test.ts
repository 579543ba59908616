import { describe, expect, it } from '@jest/globals';
import type { ApiKeyView } from '@acs/contracts';
import { editDraftOf, editKeyPage } from '../src/pages/keys/key-edit-page.js';
import { keyPage } from '../src/pages/keys/key-page.js';
import { describeIpAllowList, ipAllowListFromForm } from '../src/pages/ip-allow-list.js';

const key = (overrides: Partial<ApiKeyView> = {}): ApiKeyView => ({
  id: 'k1',
  name: 'app',
  key: 'acs_live_x',
  scopes: 'read:devices',
  environment: 'live',
  createdAt: '2026-05-01T00:00:00Z',
  lastUsedAt: null,
  revokedAt: null,
  revokedReason: null,
  exposedAt: null,
  rateLimits: null,
  expiresAt: null,
  graceEndsAt: null,
  ipAllowList: null,
  ...overrides,
});
const chrome = (fieldErrors?: Record<string, string>) => ({
  csrfToken: 'csrf',
  signedIn: true,
  path: '/keys',
  ...(fieldErrors ? { fieldErrors, error: 'Please check' } : {}),
});

describe('the allowed addresses field', () => {
  it('reads one range per line, ignoring blank lines and spaces around; empty is any address (null)', () => {
    expect(ipAllowListFromForm(' 203.0.113.0/24\r\n\n2001:db8::/32 \n')).toEqual({
      ok: true,
      ipAllowList: ['203.0.113.0/24', '2001:db8::/32'],
    });
    expect(ipAllowListFromForm(' \n ')).toEqual({ ok: true, ipAllowList: null });
  });

  it('names the line that is not a range, and caps the count', () => {
    const bad = ipAllowListFromForm('10.0.0.0/8\n10.0.0.0/33');
    expect(bad).toEqual({
      ok: false,
      message: expect.stringMatching(/^Line 2, “10\.0\.0\.0\/33”: an IPv4 prefix length is at most 32\.$/),
    });
    const many = ipAllowListFromForm(Array.from({ length: 101 }, (_, i) => `10.0.${i}.0/24`).join('\n'));
    expect(many).toEqual({ ok: false, message: 'At most 100 ranges, one per line.' });
  });

  it("shows the list on the key's page and in the edit form, one range per line, with its error beside it", () => {
    const listed = key({ ipAllowList: ['203.0.113.0/24', '2001:db8::/32'] });
    expect(describeIpAllowList(null)).toBe('any address');
    expect(String(keyPage(chrome(), { key: listed, usage: null, created: null, rolled: null, publicGatewayUrl: 'http://gw' }))).toContain(
      '<dd class="ip-allow-list">203.0.113.0/24, 2001:db8::/32</dd>',
    );
    const draft = editDraftOf(listed);
    expect(draft.ipAllowList).toBe('203.0.113.0/24\n2001:db8::/32');
    const refused = String(editKeyPage(chrome({ ipAllowList: 'Line 1 is wrong' }), listed, { ...draft, ipAllowList: 'nope' }));
    expect(refused).toMatch(/<textarea id="field-ipAllowList" name="ipAllowList"[^>]*aria-invalid="true"[^>]*>nope<\/textarea>/);
    expect(refused).toContain('<p class="field-error" id="field-ipAllowList-error">Line 1 is wrong</p>');
  });
});
