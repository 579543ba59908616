import { describe, expect, it } from '@jest/globals';
import type { ApiKeyView } from '@acs/contracts';
import { createKeyPage } from '../src/pages/keys/key-create-page.js';
import { editDraftOf, editKeyPage } from '../src/pages/keys/key-edit-page.js';
import { keyPage } from '../src/pages/keys/key-page.js';
import { describeRateLimits, rateLimitsField, rateLimitsFromForm } from '../src/pages/rate-limits.js';

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

describe('rate limits in words', () => {
  it('says each window with the largest whole unit and thousands separators; none is the deployment default', () => {
    expect(
      describeRateLimits([
        { limit: 20, windowSeconds: 1 },
        { limit: 50_000, windowSeconds: 86_400 },
      ]),
    ).toBe('20 per second, 50,000 per day');
    expect(
      describeRateLimits([
        { limit: 5, windowSeconds: 600 },
        { limit: 1, windowSeconds: 90 },
        { limit: 7, windowSeconds: 7200 },
      ]),
    ).toBe('5 per 10 minutes, 1 per 90 seconds, 7 per 2 hours');
    expect(describeRateLimits(null)).toBe('deployment default');
    expect(describeRateLimits(undefined)).toBe('deployment default');
  });
});

describe('the limits field of a form', () => {
  it('reads the text form; empty is the default (null); a bad value is explained with an example', () => {
    expect(rateLimitsFromForm(' 20/1s, 50000/1d ')).toEqual({
      ok: true,
      rateLimits: [
        { limit: 20, windowSeconds: 1 },
        { limit: 50_000, windowSeconds: 86_400 },
      ],
    });
    expect(rateLimitsFromForm('  ')).toEqual({ ok: true, rateLimits: null });
    for (const bad of ['20 per second', '0/1s', '1/1s,2/1s', '1/1s,1/2s,1/3s,1/4s,1/5s', '5/2d']) {
      const result = rateLimitsFromForm(bad);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.message).toContain('e.g. 20/1s,50000/1d');
    }
  });

  it('is described by its hint and, after a refusal, by its error, and marked invalid', () => {
    const clean = rateLimitsField('f', '', undefined, false).value;
    expect(clean).toContain('aria-describedby="f-hint"');
    expect(clean).not.toContain('aria-invalid');
    expect(clean).toContain('ceiling');
    const refused = rateLimitsField('f', '500/1s', '500/1s is above the ceiling 100/1s', true).value;
    expect(refused).toContain('aria-describedby="f-hint f-error"');
    expect(refused).toContain('aria-invalid="true"');
    expect(refused).toContain('<p class="field-error" id="f-error">500/1s is above the ceiling 100/1s</p>');
    expect(refused).toContain('value="500/1s"');
    expect(refused).toContain('autofocus');
  });
});

describe('the key pages', () => {
  const limited = key({ id: 'k2', name: 'limited', rateLimits: [{ limit: 20, windowSeconds: 1 }] });
  const show = (k: ApiKeyView) =>
    keyPage(chrome(), { key: k, usage: null, created: null, rolled: null, publicGatewayUrl: 'http://gw' }).value;

  it("shows a key's limits in words on its page and prefills the edit form in the text form", () => {
    expect(show(key())).toContain('<dd class="rate-limits">deployment default</dd>');
    expect(show(limited)).toContain('<dd class="rate-limits">20 per second</dd>');
    const edit = editKeyPage(chrome(), limited, editDraftOf(limited)).value;
    expect(edit).toContain('<form method="post" action="/keys/k2/edit"');
    expect(edit).toMatch(/id="field-rateLimits" type="text" name="rateLimits" value="20\/1s"/);
    expect(editKeyPage(chrome(), key(), editDraftOf(key())).value).toMatch(/id="field-rateLimits" type="text" name="rateLimits" value=""/);
  });

  it('puts refused limits next to the field of the edit form only, once, with what was typed', () => {
    const page = editKeyPage(chrome({ rateLimits: '500/1s is above the ceiling 100/1s' }), limited, {
      ...editDraftOf(limited),
      rateLimits: '500/1s',
    }).value;
    expect(page.split('500/1s is above the ceiling 100/1s').length).toBe(2); // said once: beside the field, no summary
    expect(page).toContain('id="field-rateLimits-error"');
    expect(page).toMatch(/id="field-rateLimits" type="text" name="rateLimits" value="500\/1s"[^>]*aria-invalid="true"/);
  });

  it("puts the create form's refused limits next to its own field, keeping the text", () => {
    const page = createKeyPage(
      chrome({ rateLimits: 'a window of 86400 s is required (at most 100000/1d)' }),
      {
        name: 'n',
        scopes: [],
        environment: 'live',
        rateLimits: '5/1s',
      },
      null,
    ).value;
    expect(page).toContain('<p class="field-error" id="field-rateLimits-error">a window of 86400 s is required (at most 100000/1d)</p>');
    expect(page).toMatch(/id="field-rateLimits" type="text" name="rateLimits" value="5\/1s"[^>]*aria-invalid="true"[^>]*autofocus/);
  });

  it("shows a revoked key's limits without a way to change them", () => {
    const page = show(key({ revokedAt: '2026-05-02T00:00:00Z', rateLimits: [{ limit: 3, windowSeconds: 86_400 }] }));
    expect(page).toContain('<dd class="rate-limits">3 per day</dd>');
    expect(page).not.toContain('/keys/k1/edit');
    expect(page).not.toContain('/keys/k1/revoke');
  });
});
