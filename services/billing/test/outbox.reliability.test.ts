import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { AmqpBus, BusEnvelope } from '@acs/bus';
import { subscriptionEventSchema } from '../src/contracts.js';
import { startFaultProxy, testServerUrl, type FaultProxy, sleep, waitFor } from '@acs/testing';
import { AmqpWorld, newUserId, outboxRows, startBilling, type BillingHarness } from './harness.js';

describe('billing with the broker unreachable', () => {
  let world: AmqpWorld;
  let proxy: FaultProxy;
  let billingBus: AmqpBus;
  let events: BusEnvelope[];
  let billing: BillingHarness;

  beforeAll(async () => {
    world = await AmqpWorld.open();
    proxy = await startFaultProxy(testServerUrl('AMQP_URL'), 5672);
    // The consumer's bus talks to RabbitMQ directly; billing's goes through the proxy the test cuts.
    events = await world.collector(await world.bus());
    billingBus = await world.bus(proxy.url);
    await waitFor('billing bus connected', () => billingBus.ready(), 5_000);
    billing = await startBilling({ bus: billingBus });
  });
  afterAll(async () => {
    await billing?.stop();
    // Buses first: closing the proxy waits for its connections, which a live bus keeps re-opening.
    await world?.close();
    await proxy?.close();
  });

  it('accepts subscriptions while the broker is away, keeps their events in the outbox, and publishes them in order once it is back', async () => {
    const userId = newUserId();
    proxy.cut();
    await waitFor('billing bus to notice the lost connection', () => !billingBus.ready());

    const first = await billing.subscribe(userId, { planId: 'monthly' });
    expect(first.status).toBe(201);
    const second = await billing.subscribe(userId, { planId: 'yearly' });
    expect(second.status).toBe(201);
    // The relay tries, fails and backs off; the rows stay unsent.
    await waitFor('a failed publish recorded', async () =>
      (await outboxRows(billing.db)).some((row) => row.attempts > 0 && row.last_error),
    );
    await sleep(300);
    const pending = await outboxRows(billing.db);
    expect(pending.map((row) => [row.type, row.sent_at])).toEqual([
      ['subscription.activated.v1', null],
      ['subscription.changed.v1', null],
    ]);
    expect(pending[0]!.last_error).toMatch(/BusUnavailableError/);
    expect(events).toHaveLength(0);
    expect(billing.service.relay.failures).toBeGreaterThan(0);

    proxy.restore();
    const arrived = await waitFor('both events after the broker is back', () => (events.length >= 2 ? events : null), 15_000);
    expect(arrived.map((event) => subscriptionEventSchema.parse(event).type)).toEqual([
      'subscription.activated.v1',
      'subscription.changed.v1',
    ]);
    expect(arrived.map((event) => event.id)).toEqual(pending.map((row) => row.event_id));
    await waitFor('the rows marked sent', async () => (await outboxRows(billing.db)).every((row) => row.sent_at !== null));
    expect(billing.service.relay.failures).toBe(0);
  });
});
