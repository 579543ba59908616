import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createMemoryBus, type MemoryBus } from '@acs/bus';
import { metricValue } from '@acs/testing';
import { SUBSCRIPTION_EVENTS_QUEUE } from '../src/index.js';
import { SUBSCRIPTION_ROUTING_KEYS } from '../src/consumers/contracts.js';
import { registered, startIdentity, strongPassword, type IdentityHarness } from './harness.js';
import { subscriptionEvent } from './subscription-events.js';

let bus: MemoryBus;
let identity: IdentityHarness;

beforeAll(async () => {
  bus = createMemoryBus({ delayScale: 0.001 });
  identity = await startIdentity({
    bus,
    env: {
      LOGIN_MAX_FAILURES_PER_ACCOUNT: '2',
      LOGIN_MAX_FAILURES_PER_ADDRESS: '50',
      SUBSCRIPTION_EVENTS_RETRY_DELAYS_MS: '10',
      SUBSCRIPTION_EVENTS_MAX_ATTEMPTS: '2',
    },
  });
});
afterAll(async () => {
  await identity?.stop();
  await bus?.close();
});

const scrape = async (): Promise<string> => {
  const res = await fetch(`${identity.url}/metrics`); // no signature: the cluster network's scrape
  expect(res.status).toBe(200);
  return res.text();
};

async function eventually(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('GET /metrics at the identity service', () => {
  it('counts throttled logins by the limit reached, and logins by route and status', async () => {
    const before = await scrape();
    expect(metricValue(before, 'identity_login_throttled_total', { service: 'identity', limit: 'account' })).toBe(0);
    for (const limit of ['account_address', 'address'])
      expect(metricValue(before, 'identity_login_throttled_total', { service: 'identity', limit })).toBe(0);
    const { body } = await registered(identity);
    for (let i = 0; i < 2; i++)
      expect((await identity.login({ email: body.email, password: strongPassword() }, { clientIp: '198.51.100.7' })).status).toBe(401);
    expect((await identity.login({ email: body.email, password: body.password }, { clientIp: '198.51.100.7' })).status).toBe(429);
    const text = await scrape();
    expect(metricValue(text, 'identity_login_throttled_total', { limit: 'account' })).toBe(1);
    expect(metricValue(text, 'identity_login_throttled_total', { limit: 'address' })).toBe(0);
    expect(metricValue(text, 'http_server_requests_total', { method: 'POST', route: '/api/Users/Login', status: '401' })).toBe(2);
    expect(metricValue(text, 'http_server_requests_total', { method: 'POST', route: '/api/Users/Login', status: '429' })).toBe(1);
    expect(text).not.toContain(body.email.split('@')[0]!);
    expect(text).not.toContain('198.51.100.7');
  });

  it('counts subscription events consumed: applied (ack), and retried then dead-lettered', async () => {
    const { user } = await registered(identity);
    await bus.publish(SUBSCRIPTION_ROUTING_KEYS.activated, subscriptionEvent('activated', user.id));
    await bus.publish(SUBSCRIPTION_ROUTING_KEYS.activated, subscriptionEvent('activated', 2_000_000_001)); // no such user
    const consumed = (text: string, outcome: string) =>
      metricValue(text, 'bus_messages_consumed_total', { service: 'identity', queue: SUBSCRIPTION_EVENTS_QUEUE, outcome });
    // Both outcomes, whichever comes first: the two events are handled concurrently.
    await eventually(async () => {
      const text = await scrape();
      return consumed(text, 'dead_lettered') === 1 && consumed(text, 'ack') === 1;
    });
    const text = await scrape();
    expect(consumed(text, 'ack')).toBe(1);
    expect(consumed(text, 'retry')).toBe(1);
    expect(bus.deadLetters(SUBSCRIPTION_EVENTS_QUEUE)).toHaveLength(1);
  });
});
