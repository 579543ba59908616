import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { subscriptionPlanListResponseSchema, subscriptionViewSchema } from '@acs/contracts';
import { SPEC_ERRORS } from '@acs/errors';
import { startSystemUnderTest, type SystemUnderTest } from './system-harness.js';
import { appKey, bearer, json, newUser, type Auth } from './actors.js';

// Issue 5 through the gateway: a subscription raises the role on the next requests, with no re-login.
const PERIOD_SECONDS = 5;
let sut: SystemUnderTest;
let app: Auth;
let dashboard: Auth;
let monthlyPlanId: string | number;

beforeAll(async () => {
  sut = await startSystemUnderTest({ TRIAL_DURATION_SECONDS: '0', BILLING_PERIOD_SECONDS_MONTHLY: String(PERIOD_SECONDS) });
  app = await appKey(sut, ['auth:register', 'auth:login', 'read:devices']);
  dashboard = await appKey(sut, ['system:full-access']);
  const plans = subscriptionPlanListResponseSchema.parse(await (await sut.call('GET', '/api/SubscriptionPlans', app)).json());
  expect(plans.items.map((p) => p.planType).sort()).toEqual([0, 1, 2, 3]);
  monthlyPlanId = plans.items.find((p) => p.planType === 1)!.id;
}, 60_000);
afterAll(async () => sut?.stop());

const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;

async function eventually(check: () => Promise<boolean>, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('not reached in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('subscriptions raise and lower the role', () => {
  it('a Free user subscribes; the token issued while Free creates API keys; the next login shows role 1 and plan_type; the period end drops the role', async () => {
    const user = await newUser(sut, app);
    const { token, body } = await user.login();
    expect(body.user).toMatchObject({ role: 0, isTrialSubscription: false });
    const createKey = () => sut.call('POST', '/api/ApiKeys', dashboard, bearer(token, json({ name: 'k', scopes: 'read:devices' })));
    const refused = await createKey();
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ message: SPEC_ERRORS.insufficientUser.message });

    const subscribed = await sut.call('POST', '/api/Subscriptions', dashboard, bearer(token, json({ planId: monthlyPlanId })));
    expect(subscribed.status).toBe(201);
    const subscription = subscriptionViewSchema.parse(await subscribed.json());
    expect(subscription).toMatchObject({ planType: 1, status: 'active' });

    // The event travels billing -> outbox -> bus -> identity -> authorization record; same token, no re-login.
    await eventually(async () => (await createKey()).status === 201);
    const relogin = await user.login();
    expect(relogin.body.user).toMatchObject({ role: 1 });
    expect(claimsOf(relogin.token)).toMatchObject({ role: 1, plan_type: 1 });

    const listed = (await (await sut.call('GET', '/api/Subscriptions', dashboard, bearer(token))).json()) as { items: { id: unknown }[] };
    expect(listed.items.map((s) => s.id)).toEqual([subscription.id]);

    const periodEnd = new Date(subscription.currentPeriodEnd!).getTime();
    await new Promise((r) => setTimeout(r, periodEnd - Date.now() + 1200));
    const after = await createKey();
    expect(after.status).toBe(403); // the period is over: Free again on the next request, no scheduler involved
  }, 30_000);

  it('cancel keeps the role until the period end; another user cannot see or cancel it', async () => {
    const owner = await newUser(sut, app);
    const other = await newUser(sut, app);
    const created = subscriptionViewSchema.parse(
      await (await sut.call('POST', '/api/Subscriptions', dashboard, bearer(owner.token, json({ planId: monthlyPlanId })))).json(),
    );
    expect((await sut.call('DELETE', `/api/Subscriptions/${created.id}`, dashboard, bearer(other.token))).status).toBe(404);
    const otherList = (await (await sut.call('GET', '/api/Subscriptions', dashboard, bearer(other.token))).json()) as { items: unknown[] };
    expect(otherList.items).toEqual([]);
    const canceled = await sut.call('DELETE', `/api/Subscriptions/${created.id}`, dashboard, bearer(owner.token));
    expect(canceled.status).toBe(200);
    expect(subscriptionViewSchema.parse(await canceled.json())).toMatchObject({ status: 'active', cancelAtPeriodEnd: true });
  });

  it('refuses the Free plan (400), a missing JWT (spec 403) and an app key without system:full-access (spec 403)', async () => {
    const user = await newUser(sut, app);
    const plans = subscriptionPlanListResponseSchema.parse(await (await sut.call('GET', '/api/SubscriptionPlans', app)).json());
    const free = plans.items.find((p) => p.planType === 0)!.id;
    expect((await sut.call('POST', '/api/Subscriptions', dashboard, bearer(user.token, json({ planId: free })))).status).toBe(400);
    const noJwt = await sut.call('POST', '/api/Subscriptions', dashboard, json({ planId: monthlyPlanId }));
    expect(await noJwt.json()).toMatchObject({ message: SPEC_ERRORS.insufficientUser.message });
    const appOnly = await sut.call('POST', '/api/Subscriptions', app, bearer(user.token, json({ planId: monthlyPlanId })));
    expect(appOnly.status).toBe(403);
    expect(await appOnly.json()).toMatchObject({ message: SPEC_ERRORS.insufficientScope.message });
  });
});
