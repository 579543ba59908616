import { describe, expect, it } from '@jest/globals';
import type { ApiKeyView } from '@acs/contracts';
import {
  canRoll,
  exposureNotice,
  defaultExpiryChoice,
  expiryChoices,
  expiryField,
  expiryFromForm,
  keyStatus,
  lifecycleFacts,
} from '../src/pages/key-lifecycle.js';
import { usageChart } from '../src/pages/usage-chart.js';

const NOW = Date.parse('2026-05-10T12:00:00Z');
const DAY = 86_400_000;
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

describe('key cards: expiry and roll', () => {
  it('warns "expires in 3 days" within a week, not further out, and says never without an expiry', () => {
    expect(lifecycleFacts(key({ expiresAt: new Date(NOW + 2.5 * DAY).toISOString() }), NOW).value).toContain('class="expiry-warning"');
    expect(lifecycleFacts(key({ expiresAt: new Date(NOW + 2.5 * DAY).toISOString() }), NOW).value).toContain('expires in 3 days');
    expect(lifecycleFacts(key({ expiresAt: new Date(NOW + 3600_000).toISOString() }), NOW).value).toContain('expires within a day');
    expect(lifecycleFacts(key({ expiresAt: new Date(NOW + 30 * DAY).toISOString() }), NOW).value).not.toContain('expiry-warning');
    expect(lifecycleFacts(key(), NOW).value).toContain('<dt>Expires</dt><dd>never</dd>');
  });

  it('shows an expired key as expired, with no roll; a revoked one neither', () => {
    const expired = key({ expiresAt: new Date(NOW - DAY).toISOString() });
    expect(keyStatus(expired, NOW).value).toContain('expired 2026-05-09 12:00 UTC');
    expect(canRoll(expired, NOW)).toBe(false);
    expect(canRoll(key({ revokedAt: '2026-05-02T00:00:00Z' }), NOW)).toBe(false);
    expect(canRoll(key(), NOW)).toBe(true);
  });

  it('marks an exposed key as exposed (not merely revoked) and says why, once per list', () => {
    const exposed = key({ name: 'leaky', revokedAt: '2026-05-09T10:00:00Z', revokedReason: 'exposed', exposedAt: '2026-05-09T10:00:00Z' });
    expect(keyStatus(exposed, NOW).value).toBe('<span class="exposed">exposed 2026-05-09 10:00 UTC: revoked</span>');
    expect(canRoll(exposed, NOW)).toBe(false);
    expect(exposureNotice([key(), exposed]).value).toContain('The key “leaky” was revoked because its secret was found exposed');
    expect(exposureNotice([exposed, { ...exposed, id: 'k2' }]).value).toContain('2 keys were revoked');
    expect(exposureNotice([key(), key({ revokedAt: '2026-05-09T10:00:00Z' })]).value).toBe('');
  });

  it("shows until when a rolled key's old secret works", () => {
    expect(lifecycleFacts(key({ graceEndsAt: '2026-05-11T12:00:00Z' }), NOW).value).toContain(
      '<dt>Old secret</dt><dd>works until 2026-05-11 12:00 UTC</dd>',
    );
  });
});

describe('usage chart', () => {
  const zero = { '2xx': 0, '3xx': 0, '4xx': 0, '429': 0, '5xx': 0 };
  it('draws one bar per day stacked by status class, scaled to the busiest day, with a text alternative', () => {
    const svg = usageChart('k1', 'app', {
      days: [
        { date: '2026-05-09', requests: 4, byStatus: { ...zero, '2xx': 2, '429': 2 } },
        { date: '2026-05-10', requests: 0, byStatus: zero },
      ],
    }).value;
    expect(svg.match(/<g class="day">/g)).toHaveLength(2);
    expect(svg).toContain('<title>2026-05-09: 4 requests (2xx: 2, 3xx: 0, 4xx: 0, 429: 2, 5xx: 0)</title>');
    // 2 of 4 at the busiest day: each half of the plot height (63).
    expect(svg.match(/height="31\.5" fill="#2e7d32"/g)).toHaveLength(1);
    expect(svg.match(/height="31\.5" fill="#8e24aa"/g)).toHaveLength(1);
    expect(svg).toContain('aria-label="Requests per day with key “app” from 2026-05-09 to 2026-05-10: 4 in all, at most 4 on one day."');
    expect(svg).not.toMatch(/<script|style=/);
  });

  it('escapes the key name', () => {
    expect(usageChart('k1', '<b>"x"</b>', { days: [{ date: '2026-05-10', requests: 0, byStatus: zero }] }).value).not.toContain('<b>');
  });
});

describe('the create form: a lifetime or a date', () => {
  it('turns a lifetime into now + days, never into null, and a date into the end of that day in UTC', () => {
    expect(expiryFromForm('30', '', null, NOW)).toEqual({ ok: true, expiresAt: new Date(NOW + 30 * DAY).toISOString() });
    expect(expiryFromForm('', '', null, NOW)).toEqual({ ok: true, expiresAt: null });
    expect(expiryFromForm('date', '2027-01-31', null, NOW)).toEqual({ ok: true, expiresAt: '2027-02-01T00:00:00.000Z' });
    // Today still has hours left (NOW is noon UTC): the key works until midnight.
    expect(expiryFromForm('date', '2026-05-10', null, NOW)).toEqual({ ok: true, expiresAt: '2026-05-11T00:00:00.000Z' });
    expect(expiryFromForm('date', '2028-02-29', null, NOW)).toEqual({ ok: true, expiresAt: '2028-03-01T00:00:00.000Z' });
  });

  it('refuses an unknown choice, a missing, malformed, non-existent or past date, and a date beside a fixed lifetime', () => {
    const refusal = (choice: string, date: string) => {
      const result = expiryFromForm(choice, date, null, NOW);
      return result.ok ? null : result.message;
    };
    expect(refusal('45', '')).toBe('Choose when the key expires.');
    expect(refusal('date', '')).toBe('Choose the date the key expires on.');
    for (const bad of ['31/01/2027', '2027-1-31', '2027-02-30', '2027-13-01', '0000-01-01', '2027-01-31T00:00', ' 2027-01-31'])
      expect(refusal('date', bad)).toBe('Enter the date as year-month-day, e.g. 2027-01-31.');
    expect(refusal('date', '2026-05-09')).toBe('Choose today or a later date.');
    expect(refusal('30', '2027-01-31')).toBe('To use the date, choose “on the date below” (or clear the date).');
  });

  it('renders the date field with today (UTC) as its minimum, the sent value kept, and the error tied to it', () => {
    const field = expiryField('date', '2027-01-31', 'Choose today or a later date.', null, NOW).value;
    expect(field).toContain('<option value="date" selected>on the date below</option>');
    expect(field).toMatch(/<input id="field-expires-on" type="date" name="expiresOn" value="2027-01-31" min="2026-05-10"/);
    expect(field).toMatch(/aria-describedby="field-expires-on-hint field-expires-error" aria-invalid="true"/);
    expect(expiryField('', '', undefined, null, NOW).value).not.toContain('aria-invalid');
  });

  it('with KEY_MAX_LIFETIME_DAYS set, offers no "never" and nothing beyond the maximum, and refuses them when sent', () => {
    expect(expiryChoices(null).map((c) => c.value)).toEqual(['', '7', '30', '90', '365', 'date']);
    expect(expiryChoices(90).map((c) => c.value)).toEqual(['7', '30', '90', 'date']);
    expect(expiryChoices(60).map((c) => [c.value, c.label])).toEqual([
      ['7', 'in 7 days'],
      ['30', 'in 30 days'],
      ['60', 'in 60 days (the longest allowed)'],
      ['date', 'on the date below'],
    ]);
    expect(defaultExpiryChoice(null)).toBe('');
    expect(defaultExpiryChoice(365)).toBe('90');
    expect(defaultExpiryChoice(60)).toBe('60');
    const refusal = (choice: string, date: string) => {
      const result = expiryFromForm(choice, date, 60, NOW);
      return result.ok ? null : result.message;
    };
    expect(refusal('', '')).toBe('Choose when the key expires.');
    expect(refusal('365', '')).toBe('Choose when the key expires.');
    expect(expiryFromForm('60', '', 60, NOW)).toEqual({ ok: true, expiresAt: new Date(NOW + 60 * DAY).toISOString() });
    // NOW is 2026-05-10 noon UTC: 2026-07-08 ends 59.5 days ahead, 2026-07-09 ends 60.5 days ahead.
    expect(expiryFromForm('date', '2026-07-08', 60, NOW)).toEqual({ ok: true, expiresAt: '2026-07-09T00:00:00.000Z' });
    expect(refusal('date', '2026-07-09')).toBe('Keys here expire within 60 days: choose 2026-07-08 or an earlier date.');
  });

  it('with a maximum, renders the date field with it as max and says so, and selects no "never"', () => {
    const field = expiryField(defaultExpiryChoice(60), '', undefined, 60, NOW).value;
    expect(field).not.toContain('>never<');
    expect(field).toContain('<option value="60" selected>in 60 days (the longest allowed)</option>');
    expect(field).toMatch(/min="2026-05-10" max="2026-07-08"/);
    expect(field).toContain('Keys here expire within 60 days.');
    expect(expiryField('', '', undefined, null, NOW).value).not.toContain(' max=');
  });
});
