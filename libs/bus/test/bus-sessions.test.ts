import { afterEach, describe, expect, it } from '@jest/globals';
import { connect, type ChannelModel } from 'amqplib';
import { RawBroker, uniqueName, waitFor } from '@acs/testing';
import { BusSessions } from '../src/amqp/bus-sessions.js';
import { SubscriptionRecord } from '../src/amqp/subscription-record.js';
import { subscriptionQueueNames } from '../src/queue-names.js';
import { resolveSubscribeOptions } from '../src/subscribe-options.js';
import { AMQP_URL } from './amqp-support.js';
import { captureLogs } from './support.js';

// BusSessions on a real broker, one connection opened here instead of by the recovering connection.
describe('BusSessions', () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  async function started(): Promise<{ sessions: BusSessions; model: ChannelModel; exchange: string; raw: RawBroker }> {
    const exchange = uniqueName('bus_test_sessions');
    const raw = await RawBroker.open();
    const model = await connect(AMQP_URL);
    const sessions = new BusSessions({ exchange, logger: captureLogs('bus-sessions').logger, confirmTimeoutMs: 5_000 });
    cleanup.push(async () => {
      await raw.deleteAll([], [exchange]);
      await raw.close();
    });
    cleanup.push(() => model.close().catch(() => undefined));
    return { sessions, model, exchange, raw };
  }

  it('is current after setup, and no longer once its connection closes', async () => {
    const { sessions, model } = await started();
    expect(sessions.current).toBeNull();
    await sessions.setup(model);
    expect(sessions.current?.alive).toBe(true);
    await model.close();
    await waitFor('the session to be forgotten', () => sessions.current === null, 5_000);
  });

  it('establishes a subscription added on the current session, and closes it with the given reason', async () => {
    const { sessions, model, raw } = await started();
    await sessions.setup(model);
    const queue = uniqueName('bus_test_sessions_q');
    cleanup.push(() => raw.deleteAll(subscriptionQueueNames(queue, [1_000]), []));
    const record = new SubscriptionRecord(
      resolveSubscribeOptions({ queue, bindings: ['#'], retryDelaysMs: [1_000], handler: async () => {} }),
    );
    sessions.add(record);
    await record.established;
    expect(record.consumer).not.toBeNull();
    await sessions.close(() => new Error('closing'));
    expect(sessions.records.size).toBe(0);
    expect(record.closed).toBe(true);
    expect(sessions.current).toBeNull();
  });

  it('fails a subscription the broker refuses for its own options and forgets it, keeping the session', async () => {
    const { sessions, model, raw } = await started();
    await sessions.setup(model);
    const queue = uniqueName('bus_test_sessions_bad');
    cleanup.push(() => raw.deleteAll(subscriptionQueueNames(queue, [1_000]), []));
    // A queue already declared with other arguments: the broker closes the consumer's channel (406).
    const channel = await model.createChannel();
    await channel.assertQueue(queue, { durable: false, autoDelete: true });
    const record = new SubscriptionRecord(
      resolveSubscribeOptions({ queue, bindings: ['#'], retryDelaysMs: [1_000], handler: async () => {} }),
    );
    sessions.add(record);
    await expect(record.established).rejects.toThrow();
    expect(sessions.records.has(record)).toBe(false);
    expect(sessions.current?.alive).toBe(true);
  });
});
