import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { BusUnavailableError, type Bus, type BusEnvelope } from '@acs/bus';
import { AUDIT_RECORDED_EVENT_TYPE } from '@acs/contracts';
import { metricValue, sleep, waitFor } from '@acs/testing';
import { newUserId, startBilling, type BillingHarness } from './harness.js';

/** A bus the test takes down and brings back; what it accepted is kept. */
function switchableBus(): Bus & { up: boolean; accepted: BusEnvelope[] } {
  const bus = {
    up: false,
    accepted: [] as BusEnvelope[],
    async publish(_routingKey: string, message: BusEnvelope): Promise<void> {
      if (!bus.up) throw new BusUnavailableError('not connected to the message broker');
      bus.accepted.push(message);
    },
    subscribe: () => Promise.reject(new Error('billing does not subscribe')),
    ready: () => bus.up,
    close: async () => undefined,
  };
  return bus;
}

let bus: ReturnType<typeof switchableBus>;
let billing: BillingHarness;

beforeAll(async () => {
  bus = switchableBus();
  billing = await startBilling({ bus });
});
afterAll(async () => billing?.stop());

const scrape = async (): Promise<string> => {
  const res = await fetch(`${billing.url}/metrics`); // no signature: the cluster network's scrape
  expect(res.status).toBe(200);
  return res.text();
};
const pending = (text: string) => metricValue(text, 'billing_outbox_pending_events', { service: 'billing' });
const oldestAge = (text: string) => metricValue(text, 'billing_outbox_oldest_pending_age_seconds', { service: 'billing' });
const published = (text: string, outcome: string) => metricValue(text, 'bus_messages_published_total', { service: 'billing', outcome });

describe('GET /metrics at the billing service', () => {
  it('shows the outbox waiting while the bus is down, and empty again once it is published', async () => {
    const empty = await scrape();
    expect(pending(empty)).toBe(0);
    expect(oldestAge(empty)).toBe(0);

    expect((await billing.subscribe(newUserId(), { planId: 'monthly' })).status).toBe(201);
    await waitFor('a failed publish', async () => (published(await scrape(), 'failed') ?? 0) >= 1);
    await sleep(1_100);
    const stuck = await scrape();
    expect(pending(stuck)).toBe(1);
    expect(oldestAge(stuck)).toBeGreaterThanOrEqual(1);
    expect(oldestAge(stuck)).toBeLessThan(60);
    expect(published(stuck, 'ok')).toBe(0);
    expect(metricValue(stuck, 'http_server_requests_total', { method: 'POST', route: '/api/Subscriptions', status: '201' })).toBe(1);

    bus.up = true;
    // The audit relay shares the bus (the entry for the user's feed): count the outbox's own events only.
    const subscriptionEvents = () => bus.accepted.filter((message) => message.type !== AUDIT_RECORDED_EVENT_TYPE);
    await waitFor('the event published', () => subscriptionEvents().length >= 1, 5_000);
    expect(subscriptionEvents()).toHaveLength(1);
    await waitFor('the outbox empty again', async () => pending(await scrape()) === 0);
    const drained = await scrape();
    expect(oldestAge(drained)).toBe(0);
    expect(published(drained, 'ok')).toBe(1);
  });
});
