import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { AmqpBus, BusEnvelope } from '@acs/bus';
import { SPEC_ERRORS } from '@acs/errors';
import {
  subscriptionEventSchema,
  subscriptionListResponseSchema,
  subscriptionPlanListResponseSchema,
  subscriptionViewSchema,
} from '../src/contracts.js';
import { waitFor } from '@acs/testing';
import { AmqpWorld, PLANS_PATH, SUBSCRIPTIONS_PATH, newUserId, outboxRows, startBilling, type BillingHarness } from './harness.js';

let world: AmqpWorld;
let bus: AmqpBus;
let events: BusEnvelope[];
let billing: BillingHarness;

beforeAll(async () => {
  world = await AmqpWorld.open();
  bus = await world.bus();
  events = await world.collector(bus);
  billing = await startBilling({ bus });
});

afterAll(async () => {
  await billing?.stop();
  await world?.close();
});

const eventsOf = (userId: number) => events.filter((event) => (event.payload as { userId: number }).userId === userId);

async function subscribed(userId: number, planId: string): Promise<Record<string, unknown>> {
  const response = await billing.subscribe(userId, { planId });
  if (response.status !== 201) throw new Error(`subscribe answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as Record<string, unknown>;
}

describe('GET /api/SubscriptionPlans', () => {
  it('lists the four seeded plans in plan-type order, each with its quota', async () => {
    const response = await billing.call('GET', PLANS_PATH);
    expect(response.status).toBe(200);
    const body = subscriptionPlanListResponseSchema.strict().parse(await response.json());
    expect(body.items).toEqual([
      {
        id: 'free',
        name: 'Free',
        planType: 0,
        price: 0,
        currency: 'EUR',
        billingInterval: 'none',
        quota: { perMonth: 10_000, perDay: 1000 },
      },
      {
        id: 'monthly',
        name: 'Monthly',
        planType: 1,
        price: 4.99,
        currency: 'EUR',
        billingInterval: 'month',
        quota: { perMonth: 1_000_000, perDay: null },
      },
      {
        id: 'yearly',
        name: 'Yearly',
        planType: 2,
        price: 49.99,
        currency: 'EUR',
        billingInterval: 'year',
        quota: { perMonth: 1_000_000, perDay: null },
      },
      {
        id: 'lifetime',
        name: 'Lifetime',
        planType: 3,
        price: 149.99,
        currency: 'EUR',
        billingInterval: 'lifetime',
        quota: { perMonth: 2_000_000, perDay: null },
      },
    ]);
  });
});

describe('POST /api/Subscriptions', () => {
  it('answers 201 with the subscription and publishes subscription.activated.v1 with a valid envelope', async () => {
    const userId = newUserId();
    const before = Date.now();
    const response = await billing.subscribe(userId, { planId: 'monthly' });
    expect(response.status).toBe(201);
    const body = subscriptionViewSchema.strict().parse(await response.json());
    expect(body).toMatchObject({ planId: 'monthly', planType: 1, status: 'active', cancelAtPeriodEnd: false, endedAt: null });
    const start = Date.parse(body.currentPeriodStart);
    expect(start).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(body.currentPeriodEnd!) - start).toBe(30 * 24 * 3600 * 1000);

    const [event] = await waitFor('the activated event', () => (eventsOf(userId).length === 1 ? eventsOf(userId) : null));
    const parsed = subscriptionEventSchema.parse(event);
    expect(parsed.type).toBe('subscription.activated.v1');
    expect(parsed.payload).toMatchObject({
      eventId: parsed.id,
      userId,
      subscriptionId: body.id,
      planType: 1,
      status: 'active',
      currentPeriodEnd: body.currentPeriodEnd,
      cancelAtPeriodEnd: false,
    });
    await waitFor(
      'the outbox row marked sent',
      async () => (await outboxRows(billing.db)).find((row) => row.event_id === parsed.id)?.sent_at,
    );
  });

  it('gives Lifetime a null period end', async () => {
    const userId = newUserId();
    const body = await subscribed(userId, 'lifetime');
    expect(body).toMatchObject({ planType: 3, status: 'active', currentPeriodEnd: null });
    const [event] = await waitFor('the event', () => (eventsOf(userId).length === 1 ? eventsOf(userId) : null));
    expect(event!.payload).toMatchObject({ planType: 3, currentPeriodEnd: null });
  });

  it('refuses the Free plan with 400 and an unknown plan with 404, changing nothing', async () => {
    const userId = newUserId();
    const free = await billing.subscribe(userId, { planId: 'free' });
    expect(free.status).toBe(400);
    expect(await free.json()).toEqual({
      error: 'Bad request',
      message: 'The Free plan needs no subscription',
      code: 'free_plan',
      requestId: expect.any(String),
    });
    const unknown = await billing.subscribe(userId, { planId: 'platinum' });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: 'Not found', message: 'No subscription plan platinum' });
    const list = await billing.call('GET', SUBSCRIPTIONS_PATH, { userId });
    expect(await list.json()).toEqual({ items: [] });
  });

  it('refuses bad bodies with 400', async () => {
    const userId = newUserId();
    for (const body of [{}, { planId: '' }, { planId: 7 }, { planId: 'monthly', extra: true }, [], 'monthly']) {
      const response = await billing.subscribe(userId, body);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error: 'Bad request' });
    }
    const notJson = await billing.call('POST', SUBSCRIPTIONS_PATH, {
      userId,
      body: '{"planId":',
      headers: { 'content-type': 'application/json' },
    });
    expect(notJson.status).toBe(400);
    const badKey = await billing.subscribe(userId, { planId: 'monthly' }, { 'Idempotency-Key': 'has space' });
    expect(badKey.status).toBe(400);
  });

  it('replays the first answer for the same Idempotency-Key and body, and refuses another body with 422', async () => {
    const userId = newUserId();
    const headers = { 'Idempotency-Key': 'order-123' };
    const first = await billing.subscribe(userId, { planId: 'yearly' }, headers);
    expect(first.status).toBe(201);
    const firstBody = await first.json();
    const again = await billing.subscribe(userId, { planId: 'yearly' }, headers);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(firstBody);
    const other = await billing.subscribe(userId, { planId: 'monthly' }, headers);
    expect(other.status).toBe(422);
    expect(await other.json()).toMatchObject({
      error: 'Unprocessable entity',
      message: 'This Idempotency-Key was already used with a different request body',
    });
    // One subscription, one event; the same key belongs to nobody else.
    expect(((await (await billing.call('GET', SUBSCRIPTIONS_PATH, { userId })).json()) as { items: unknown[] }).items).toHaveLength(1);
    const stranger = await billing.subscribe(newUserId(), { planId: 'monthly' }, headers);
    expect(stranger.status).toBe(201);
    await waitFor('the event', () => eventsOf(userId).length === 1);
    expect((await outboxRows(billing.db)).filter((row) => row.type === 'subscription.activated.v1').length).toBeGreaterThanOrEqual(2);
  });

  it('replaces an active subscription with another plan: the old one ends now, subscription.changed is emitted', async () => {
    const userId = newUserId();
    const monthly = await subscribed(userId, 'monthly');
    const yearly = await subscribed(userId, 'yearly');
    expect(yearly).toMatchObject({ planId: 'yearly', planType: 2, status: 'active' });
    const list = subscriptionListResponseSchema.parse(await (await billing.call('GET', SUBSCRIPTIONS_PATH, { userId })).json());
    expect(list.items.map((item) => [item.id, item.status])).toEqual([
      [yearly.id, 'active'],
      [monthly.id, 'replaced'],
    ]);
    expect(list.items[1]!.endedAt).not.toBeNull();
    const types = await waitFor('both events', () => (eventsOf(userId).length === 2 ? eventsOf(userId).map((event) => event.type) : null));
    expect(types).toEqual(['subscription.activated.v1', 'subscription.changed.v1']);
    const changed = eventsOf(userId)[1]!.payload as Record<string, unknown>;
    expect(changed).toMatchObject({ planType: 2, subscriptionId: yearly.id, currentPeriodEnd: yearly.currentPeriodEnd });
    expect(changed.sequence as number).toBeGreaterThan((eventsOf(userId)[0]!.payload as { sequence: number }).sequence);
    // The same plan again while active is a conflict, not a second subscription.
    const again = await billing.subscribe(userId, { planId: 'yearly' });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ code: 'already_subscribed' });
  });

  it('answers 403 with the spec body without a user, and 401 to an unsigned request', async () => {
    const noUser = await billing.call('POST', SUBSCRIPTIONS_PATH, { body: { planId: 'monthly' } });
    expect(noUser.status).toBe(403);
    expect(await noUser.json()).toMatchObject({ error: SPEC_ERRORS.insufficientUser.error, message: SPEC_ERRORS.insufficientUser.message });
    for (const [method, path] of [
      ['GET', SUBSCRIPTIONS_PATH],
      ['DELETE', `${SUBSCRIPTIONS_PATH}/00000000-0000-4000-8000-000000000000`],
    ] as const) {
      const response = await billing.call(method, path);
      expect(response.status).toBe(403);
      expect(await response.json()).toMatchObject({
        error: SPEC_ERRORS.insufficientUser.error,
        message: SPEC_ERRORS.insufficientUser.message,
      });
    }
    const unsigned = await fetch(`${billing.url}${SUBSCRIPTIONS_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"planId":"monthly"}',
    });
    expect(unsigned.status).toBe(401);
    expect(await unsigned.json()).toMatchObject({ error: 'Unauthorized' });
    expect((await fetch(`${billing.url}${PLANS_PATH}`)).status).toBe(401);
  });
});

describe('GET /api/Subscriptions', () => {
  it("lists the caller's subscriptions newest first and nobody else's", async () => {
    const alice = newUserId();
    const bob = newUserId();
    const a1 = await subscribed(alice, 'monthly');
    const b1 = await subscribed(bob, 'lifetime');
    const a2 = await subscribed(alice, 'lifetime');
    const aliceList = subscriptionListResponseSchema
      .strict()
      .parse(await (await billing.call('GET', SUBSCRIPTIONS_PATH, { userId: alice })).json());
    expect(aliceList.items.map((item) => item.id)).toEqual([a2.id, a1.id]);
    const bobList = subscriptionListResponseSchema.parse(await (await billing.call('GET', SUBSCRIPTIONS_PATH, { userId: bob })).json());
    expect(bobList.items.map((item) => item.id)).toEqual([b1.id]);
  });
});

describe('DELETE /api/Subscriptions/{id}', () => {
  it('cancels at period end: cancelAtPeriodEnd true, still active, subscription.canceled emitted once', async () => {
    const userId = newUserId();
    const created = await subscribed(userId, 'monthly');
    const response = await billing.call('DELETE', `${SUBSCRIPTIONS_PATH}/${created.id as string}`, { userId });
    expect(response.status).toBe(200);
    const body = subscriptionViewSchema.parse(await response.json());
    expect(body).toMatchObject({
      id: created.id,
      status: 'active',
      cancelAtPeriodEnd: true,
      currentPeriodEnd: created.currentPeriodEnd,
      endedAt: null,
    });
    const again = await billing.call('DELETE', `${SUBSCRIPTIONS_PATH}/${created.id as string}`, { userId });
    expect(again.status).toBe(200);
    const types = await waitFor('both events', () => (eventsOf(userId).length === 2 ? eventsOf(userId).map((event) => event.type) : null));
    expect(types).toEqual(['subscription.activated.v1', 'subscription.canceled.v1']);
    expect(eventsOf(userId)[1]!.payload).toMatchObject({
      status: 'active',
      cancelAtPeriodEnd: true,
      currentPeriodEnd: created.currentPeriodEnd,
      planType: 1,
    });
    // Subscribing to the same plan after canceling starts a new period (replacing the canceled one).
    const renewed = await subscribed(userId, 'monthly');
    expect(renewed).toMatchObject({ status: 'active', cancelAtPeriodEnd: false });
  });

  it('ends a Lifetime subscription at once (it has no period end to wait for)', async () => {
    const userId = newUserId();
    const created = await subscribed(userId, 'lifetime');
    const body = subscriptionViewSchema.parse(
      await (await billing.call('DELETE', `${SUBSCRIPTIONS_PATH}/${created.id as string}`, { userId })).json(),
    );
    expect(body).toMatchObject({ status: 'canceled', cancelAtPeriodEnd: false });
    expect(body.currentPeriodEnd).not.toBeNull();
    const canceled = await waitFor('the canceled event', () => eventsOf(userId).find((event) => event.type === 'subscription.canceled.v1'));
    expect(canceled.payload).toMatchObject({ status: 'canceled', currentPeriodEnd: body.currentPeriodEnd });
    expect((await billing.call('DELETE', `${SUBSCRIPTIONS_PATH}/${created.id as string}`, { userId })).status).toBe(409);
  });

  it("answers 404 for someone else's, an unknown or a malformed id", async () => {
    const owner = newUserId();
    const created = await subscribed(owner, 'monthly');
    for (const id of [created.id as string, '00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const response = await billing.call('DELETE', `${SUBSCRIPTIONS_PATH}/${id}`, { userId: newUserId() });
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ error: 'Not found', message: 'No such subscription' });
    }
    const list = subscriptionListResponseSchema.parse(await (await billing.call('GET', SUBSCRIPTIONS_PATH, { userId: owner })).json());
    expect(list.items[0]!.cancelAtPeriodEnd).toBe(false);
  });
});
