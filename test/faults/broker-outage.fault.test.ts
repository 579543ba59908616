import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connect } from 'amqplib';
import { subscriptionQueueNames } from '@acs/bus';
import { subscriptionPlanListResponseSchema } from '@acs/contracts';
import { identityConfigSchema } from '@acs/identity-service';
import { startFaultProxy, testServerUrl, uniqueName, type FaultProxy } from '@acs/testing';
import { startSystemUnderTest, type SystemUnderTest } from '../e2e/system-harness.js';
import { appKey, bearer, json, newUser, type Auth } from '../e2e/actors.js';

// Fault injection: RabbitMQ goes away while a user subscribes (docs/architecture.md, decision 4: events
// are never lost). Billing must still accept the subscription (the event waits in its outbox), and
// once the broker is back the event must reach identity and raise the user's role, with no restart.

// The launcher leaves identity's retry delays at their defaults; cleanup needs them to name the retry queues.
const IDENTITY_RETRY_DELAYS = identityConfigSchema.shape.SUBSCRIPTION_EVENTS_RETRY_DELAYS_MS.parse(undefined);
const exchange = uniqueName('acs_fault_events');
const queue = uniqueName('acs_fault_identity');
let amqp: FaultProxy;
let sut: SystemUnderTest;
let app: Auth;
let dashboard: Auth;
let monthlyPlanId: string | number;

async function eventually(check: () => Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

beforeAll(async () => {
  amqp = await startFaultProxy(testServerUrl('AMQP_URL'), 5672);
  sut = await startSystemUnderTest({
    AMQP_URL: amqp.url,
    BUS_EXCHANGE: exchange,
    SUBSCRIPTION_EVENTS_QUEUE: queue,
    TRIAL_DURATION_SECONDS: '0',
  });
  app = await appKey(sut, ['auth:register', 'auth:login', 'read:devices']);
  dashboard = await appKey(sut, ['system:full-access']);
  const plans = subscriptionPlanListResponseSchema.parse(await (await sut.call('GET', '/api/SubscriptionPlans', app)).json());
  monthlyPlanId = plans.items.find((plan) => plan.planType === 1)!.id;
}, 60_000);

afterAll(async () => {
  await sut?.stop();
  await amqp?.close();
  // What the system declared on the shared broker goes with the test.
  const connection = await connect(testServerUrl('AMQP_URL'));
  const channel = await connection.createChannel();
  for (const name of subscriptionQueueNames(queue, IDENTITY_RETRY_DELAYS)) await channel.deleteQueue(name);
  await channel.deleteExchange(exchange);
  await connection.close();
});

describe('RabbitMQ outage while a user subscribes', () => {
  it('accepts the subscription during the outage and applies it once the broker is back', async () => {
    const user = await newUser(sut, app);
    const createKey = () =>
      sut.call('POST', '/api/ApiKeys', dashboard, bearer(user.token, json({ name: 'after-outage', scopes: 'read:devices' })));
    expect((await createKey()).status).toBe(403); // Free: below the role ApiKeys needs

    amqp.cut();
    let restored = false;
    try {
      const subscribed = await sut.call('POST', '/api/Subscriptions', dashboard, bearer(user.token, json({ planId: monthlyPlanId })));
      expect(subscribed.status).toBe(201);
      // The event cannot travel yet: the role stays Free.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect((await createKey()).status).toBe(403);

      amqp.restore();
      restored = true;
      // Outbox relay and consumer reconnect by themselves; the same token gets the new role.
      await eventually(async () => (await createKey()).status === 201, 30_000);
    } finally {
      if (!restored) amqp.restore();
    }
  }, 60_000);
});
