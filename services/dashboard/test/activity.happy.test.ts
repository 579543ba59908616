import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { appKey, json } from '@acs/test-support';
import { textOf, type Browser } from './browser.js';
import { PASSWORD, createdCredentials, keyIdOf, registerUser, startDashboardSystem, type DashboardSystem } from './harness.js';

// Issue 30: the Activity page shows the signed-in user's own audit trail from GET /api/AuditLog (through
// the gateway), newest first, in words, an older page at a time, filtered by kind and target.
let system: DashboardSystem;
beforeAll(async () => {
  system = await startDashboardSystem();
}, 90_000);
afterAll(async () => system?.stop());

const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';

/** The table's rows as "activity | by" (the labels the page shows). */
const rowsOf = (html: string): string[] =>
  [...html.matchAll(/<td data-label="Activity">([^<]*)<\/td>\s*<td data-label="By">([^<]*)<\/td>/g)].map((m) => `${m[1]} | ${m[2]}`);

/** Keys' entries reach identity's feed through the bus: the page is read again until they are there. */
async function activityOnceShowing(browser: Browser, path: string, text: string) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const page = await browser.get(path);
    if (page.html.includes(text) || Date.now() > deadline) return page;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('the Activity page', () => {
  it("lists the user's sign-ins and key changes in words, newest first, filtered, older pages by cursor; never a secret", async () => {
    const browser = system.browser();
    const { email } = await registerUser(browser);
    await browser.get('/keys');
    const created = await browser.post('/keys', { name: 'activity reader', scopes: ['read:devices'], environment: 'test' });
    const credentials = createdCredentials(created);
    const keyId = keyIdOf(created, credentials.key);
    await browser.get(`/keys/${keyId}/revoke`);
    expect((await browser.post(`/keys/${keyId}/revoke`, {})).status).toBe(200);

    const first = await activityOnceShowing(browser, '/activity', '” revoked');
    expect(first.status).toBe(200);
    expect(first.html).toContain('<a href="/activity" aria-current="page">Activity</a>');
    expect(rowsOf(first.html)).toEqual([
      'API key “activity reader” revoked | You',
      'API key “activity reader” created | You',
      expect.stringMatching(/^Signed in from .+ \| You$/),
      'Account created | You',
    ]);
    for (const secretish of [credentials.secret, PASSWORD]) expect(first.html).not.toContain(secretish);

    const keys = await browser.get('/activity?family=api_key');
    expect(rowsOf(keys.html)).toEqual(['API key “activity reader” revoked | You', 'API key “activity reader” created | You']);
    const target = await browser.get(`/activity?target=${keyId}`);
    expect(rowsOf(target.html)).toHaveLength(2);
    expect(textOf((await browser.get('/activity?family=subscription')).html)).toContain('No activity matches these filters.');

    // 24 more sign-ins from a browser elsewhere: 28 entries, more than a page holds.
    const app = await appKey(system.sut, ['auth:login']);
    for (let i = 0; i < 24; i += 1) {
      const login = await system.sut.call('POST', '/api/Users/Login', app, {
        ...json({ email, password: PASSWORD }),
        headers: { 'content-type': 'application/json', 'user-agent': FIREFOX },
      });
      expect(login.status).toBe(200);
    }
    const newest = await browser.get('/activity');
    const newestRows = rowsOf(newest.html);
    expect(newestRows).toHaveLength(25);
    expect(newestRows[0]).toBe('Signed in from Firefox on Linux | You');
    const older = /<a href="(\/activity\?cursor=[0-9_]+)" rel="next">Older entries<\/a>/.exec(newest.html)?.[1];
    expect(older).toBeDefined();
    const second = await browser.get(older!);
    expect(rowsOf(second.html)).toEqual([
      'API key “activity reader” created | You',
      expect.stringMatching(/^Signed in from .+ \| You$/),
      'Account created | You',
    ]);
    expect(second.html).toContain('Newest entries');
    expect(second.html).not.toContain('Older entries');
  });

  it('sends a signed-out visitor to sign in first, and back to the activity afterwards', async () => {
    const page = await system.browser().get('/activity?family=session');
    expect(page.redirects).toEqual(['/sign-in?next=%2Factivity']);
  });
});
