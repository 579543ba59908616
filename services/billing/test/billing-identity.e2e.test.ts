import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createMemoryBus, subscriptionQueueNames, type Bus } from '@acs/bus';
import { effectiveRole, currentPlanType } from '@acs/contracts';
import { uniqueName, sleep, waitFor } from '@acs/testing';
import { registered, startIdentity, type IdentityHarness } from '@acs/test-support';
import { AmqpWorld, startBilling, type BillingHarness } from './harness.js';

const nowSeconds = (): number => Math.floor(Date.now() / 1000);
const PERIOD_SECONDS = 3;

/** Billing publishes, identity consumes, the authorization record follows; the same flow on either bus. */
async function subscribeAndFollow(billing: BillingHarness, identity: IdentityHarness): Promise<void> {
  const { user, body } = await registered(identity);
  expect(user.role).toBe(0); // Free, no trial
  const response = await billing.subscribe(user.id, { planId: 'monthly' });
  expect(response.status).toBe(201);
  const subscription = (await response.json()) as { currentPeriodEnd: string };
  const cached = await waitFor('the authz record to show the subscription', async () => {
    const entry = await identity.cachedAuthz(user.id);
    return entry?.record.subscriptionEndsAt ? entry.record : null;
  });
  expect(cached).toMatchObject({ planType: 1, subscriptionEndsAt: Math.floor(Date.parse(subscription.currentPeriodEnd) / 1000) });
  expect(effectiveRole(cached, nowSeconds())).toBe(1);
  const login = (await (await identity.login({ email: body.email, password: body.password })).json()) as {
    user: { role: number };
    token: string;
  };
  expect(login.user.role).toBe(1);
  expect(JSON.parse(Buffer.from(login.token.split('.')[1]!, 'base64url').toString('utf8'))).toMatchObject({ role: 1, plan_type: 1 });
  // After the (shortened) period the same record yields the account role.
  await sleep(Date.parse(subscription.currentPeriodEnd) - Date.now() + 1100);
  expect(effectiveRole(cached, nowSeconds())).toBe(0);
  expect(currentPlanType(cached, nowSeconds())).toBe(0);
}

describe('billing to identity over RabbitMQ', () => {
  let world: AmqpWorld;
  let billing: BillingHarness;
  let identity: IdentityHarness;
  const queue = uniqueName('identity_e2e_events');

  beforeAll(async () => {
    world = await AmqpWorld.open();
    for (const name of subscriptionQueueNames(queue, [50])) world.queues.add(name);
    const identityBus: Bus = await world.bus();
    identity = await startIdentity({
      bus: identityBus,
      env: { TRIAL_DURATION_SECONDS: '0', SUBSCRIPTION_EVENTS_QUEUE: queue, SUBSCRIPTION_EVENTS_RETRY_DELAYS_MS: '50' },
    });
    billing = await startBilling({ bus: await world.bus(), env: { BILLING_PERIOD_SECONDS_MONTHLY: String(PERIOD_SECONDS) } });
  });
  afterAll(async () => {
    await billing?.stop();
    await identity?.stop();
    await world?.close();
  });

  it('raises the role while subscribed and lowers it after the period end', () => subscribeAndFollow(billing, identity));
});

describe('billing to identity in the embedded mode (one in-process bus)', () => {
  const bus = createMemoryBus();
  let billing: BillingHarness;
  let identity: IdentityHarness;

  beforeAll(async () => {
    identity = await startIdentity({ bus, env: { TRIAL_DURATION_SECONDS: '0' } });
    billing = await startBilling({ bus, env: { BILLING_PERIOD_SECONDS_MONTHLY: String(PERIOD_SECONDS) } });
  });
  afterAll(async () => {
    await billing?.stop();
    await identity?.stop();
    await bus.close();
  });

  it('raises the role while subscribed and lowers it after the period end', () => subscribeAndFollow(billing, identity));
});
