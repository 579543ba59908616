import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { textOf } from './browser.js';
import { registerUser, startDashboardSystem, type DashboardSystem } from './harness.js';

// A deployment that caps key lifetimes (KEY_MAX_LIFETIME_DAYS, given to keys and the dashboard alike):
// the create form offers only what the keys service accepts, and a key made with its defaults expires.
let system: DashboardSystem;

beforeAll(async () => {
  system = await startDashboardSystem({ KEY_MAX_LIFETIME_DAYS: '60' });
}, 90_000);
afterAll(async () => system?.stop());

const DAY_MS = 86_400_000;

describe('key lifetimes under KEY_MAX_LIFETIME_DAYS', () => {
  it('offers no "never", starts at the maximum, and the key it creates expires within it', async () => {
    const browser = system.browser();
    await registerUser(browser);
    const form = await browser.get('/keys/new');
    expect(form.status).toBe(200);
    expect(form.html).not.toMatch(/<option value="">never<\/option>/);
    expect(form.html).toContain('<option value="60" selected>in 60 days (the longest allowed)</option>');
    expect(textOf(form.html)).toContain('Keys here expire within 60 days.');

    const before = Date.now();
    const created = await browser.post('/keys', { name: 'capped', scopes: ['read:devices'], expiresInDays: '60' });
    expect(created.redirects).toEqual([expect.stringMatching(/^\/keys\/[0-9a-f-]{36}$/)]);
    const expires = /Expires\s*(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}) UTC/.exec(textOf(created.html));
    expect(expires).not.toBeNull();
    const expiresAt = Date.parse(`${expires![1]}T${expires![2]}:00Z`);
    expect(expiresAt).toBeGreaterThan(before + 60 * DAY_MS - 120_000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 60 * DAY_MS);
  });

  it('refuses "never" and a date beyond the maximum beside the field, and creates nothing', async () => {
    const browser = system.browser();
    await registerUser(browser);
    const never = await browser.post('/keys', { name: 'forever', scopes: ['read:devices'], expiresInDays: '' });
    expect(never.status).toBe(400);
    expect(textOf(never.html)).toContain('Choose when the key expires.');
    const far = new Date(Date.now() + 90 * DAY_MS).toISOString().slice(0, 10);
    const tooLate = await browser.post('/keys', { name: 'far', scopes: ['read:devices'], expiresInDays: 'date', expiresOn: far });
    expect(tooLate.status).toBe(400);
    expect(textOf(tooLate.html)).toMatch(/Keys here expire within 60 days: choose \d{4}-\d{2}-\d{2} or an earlier date\./);
    const list = await browser.get('/keys');
    expect(textOf(list.html)).toContain('Active keys (0)');
  });
});
