import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { textOf, type Browser, type Page } from './browser.js';
import { createdCredentials, registerUser, startDashboardSystem, type DashboardSystem } from './harness.js';

// Users without a trial (TRIAL_DURATION_SECONDS=0): keys need a subscription. The subscription's
// event reaches identity over the harness's in-process bus, so the role follows within moments.
let system: DashboardSystem;

beforeAll(async () => {
  system = await startDashboardSystem({ TRIAL_DURATION_SECONDS: '0' });
}, 90_000);
afterAll(async () => system?.stop());

const SUBSCRIPTION_NEEDED = 'Managing API keys needs an active subscription or trial.';

/** The plan's link on the plans page ("Subscribe to X…" / "Switch to X…"), or null when none is offered. */
const planLink = (page: Page, name: string): string | null =>
  new RegExp(`href="(/subscriptions/plans/[^"]+)"[^>]*>(?:Subscribe|Switch) to ${name}…<`).exec(page.html)?.[1] ?? null;

/** Follows the plan's link to its confirmation page and returns that page's form fields. */
async function planForm(browser: Browser, page: Page, name: string): Promise<Record<string, string>> {
  const link = planLink(page, name);
  if (!link) throw new Error(`no link for plan ${name}`);
  const confirm = await browser.get(link);
  expect(textOf(confirm.html)).toMatch(new RegExp(`(Subscribe|Switch) to ${name} for \\d+\\.\\d\\d [A-Z]{3}`));
  const planId = /name="planId" value="([^"]+)"/.exec(confirm.html)?.[1];
  const idempotencyKey = /name="idempotencyKey" value="([^"]+)"/.exec(confirm.html)?.[1];
  if (!planId || !idempotencyKey) throw new Error(`no form for plan ${name}`);
  return { planId, idempotencyKey };
}

async function eventually(check: () => Promise<boolean>, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('not reached in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('subscriptions and keys', () => {
  it('a Free user without trial sees the overview as Free and "subscription needed" on keys; creating a key is refused (403)', async () => {
    const browser = system.browser();
    const { page } = await registerUser(browser);
    expect(textOf(page.html)).toContain('Role Free');
    expect(textOf(page.html)).toContain('Trial none');

    const keys = await browser.get('/keys');
    expect(keys.status).toBe(200);
    expect(textOf(keys.html)).toContain(SUBSCRIPTION_NEEDED);
    expect(keys.html).not.toContain('action="/keys"'); // no create form to fill in for nothing

    const refused = await browser.post('/keys', { name: 'early', scopes: ['read:devices'] });
    expect(refused.status).toBe(403);
    expect(textOf(refused.html)).toContain(SUBSCRIPTION_NEEDED);
  });

  it('subscribing makes keys work with the same sign-in; the plan shows as current; cancelling keeps it until the period end', async () => {
    const browser = system.browser();
    await registerUser(browser);
    const plans = await browser.get('/subscriptions');
    const text = textOf(plans.html);
    for (const name of ['Free', 'Monthly', 'Yearly', 'Lifetime']) expect(text).toContain(name);
    // Each plan's quota (billing's defaults), in words.
    expect(text).toContain('Requests 10,000 a month, 1,000 a day, all keys together 1,000,000 a month, all keys together');
    expect(text).toContain('You have no subscriptions.');

    const subscribed = await browser.post('/subscriptions', await planForm(browser, plans, 'Monthly'));
    expect(subscribed.redirects).toEqual(['/subscriptions']);
    expect(textOf(subscribed.html)).toMatch(/Your subscription is active until \d{4}-\d{2}-\d{2}/);
    expect(textOf(subscribed.html)).toContain('your current plan');

    await eventually(async () => !textOf((await browser.get('/keys')).html).includes(SUBSCRIPTION_NEEDED));
    const created = await browser.post('/keys', { name: 'after subscribing', scopes: ['read:devices'] });
    expect(created.redirects).toEqual([expect.stringMatching(/^\/keys\/[0-9a-f-]{36}$/)]);
    const credentials = createdCredentials(created);
    expect((await system.sut.call('GET', '/api/Dac?pageSize=1', credentials)).status).toBe(200);

    const listed = await browser.get('/subscriptions');
    const cancelLink = /href="(\/subscriptions\/[^"]+\/cancel)"/.exec(listed.html)?.[1];
    expect(cancelLink).toBeDefined();
    const confirm = await browser.get(cancelLink!); // asks first; the form posts to the same address
    expect(textOf(confirm.html)).toMatch(/Cancel your Monthly subscription\? It stays active until \d{4}-/);
    expect(confirm.html).toContain(`action="${cancelLink}"`);
    const canceled = await browser.post(cancelLink!, {});
    expect(textOf(canceled.html)).toMatch(/Your subscription is canceled\. It stays active until \d{4}-/);
    expect(textOf(canceled.html)).toContain('canceled, active until');
    expect(planLink(canceled, 'Monthly')).toBeNull(); // no second subscription to the plan still running
    expect(canceled.html).not.toContain('/cancel"');
    expect(textOf((await browser.get('/keys')).html)).not.toContain(SUBSCRIPTION_NEEDED); // the role stays until then
  });

  it('the same subscribe form sent twice subscribes once (Idempotency-Key); the same plan with a new form is a readable 409', async () => {
    const browser = system.browser();
    await registerUser(browser);
    const plans = await browser.get('/subscriptions');
    const form = await planForm(browser, plans, 'Yearly');
    await browser.post('/subscriptions', form);
    const replay = await browser.post('/subscriptions', form);
    expect(replay.redirects).toEqual(['/subscriptions']);
    const rows = replay.html.split('<tr').filter((row) => row.includes('Yearly') && row.includes('/cancel"'));
    expect(rows).toHaveLength(1);

    // A fresh page has a fresh key per form; the plan is already active and not being canceled, so no button is offered.
    expect(planLink(replay, 'Yearly')).toBeNull();
    const again = await browser.post('/subscriptions', { planId: form.planId!, idempotencyKey: 'a-new-key-0001' });
    expect(again.status).toBe(409);
    expect(textOf(again.html)).toContain('You already have an active Yearly subscription');
  });

  it("cancelling a subscription id that is not the user's gives a not-found message and changes nothing", async () => {
    const owner = system.browser();
    await registerUser(owner);
    await owner.post('/subscriptions', await planForm(owner, await owner.get('/subscriptions'), 'Monthly'));
    const ownerCancel = /href="(\/subscriptions\/[^"]+\/cancel)"/.exec((await owner.get('/subscriptions')).html)![1]!;

    const intruder = system.browser();
    await registerUser(intruder);
    expect((await intruder.get(ownerCancel)).status).toBe(404); // not even the confirmation
    await intruder.get('/subscriptions');
    const refused = await intruder.post(ownerCancel, {});
    expect(refused.status).toBe(404);
    expect(textOf(refused.html)).toContain('That subscription or plan was not found in your account.');
    expect((await owner.get('/subscriptions')).html).toContain(`href="${ownerCancel}"`); // still active, still cancellable
  });
});
