import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  BusUnavailableError,
  deadLetterQueueName,
  DEFAULT_RETRY_DELAYS_MS,
  retryQueueName,
  subscriptionExchangeName,
  subscriptionQueueNames,
  topicMatches,
  type DeliveryInfo,
} from '@acs/bus';
import { RawBroker, uniqueName, waitFor } from '@acs/testing';
import { connectedBus } from './amqp-support.js';
import { describeBusContract, type BusHarness } from './bus-contract.js';
import { describeBusTracingContract } from './bus-tracing-contract.js';
import { buildEnvelope, captureLogs, type CapturedLogs } from './support.js';
import { TOPIC_CASES } from './topic-cases.js';

const amqpHarness = async ({ logger }: CapturedLogs): Promise<BusHarness> => {
  const raw = await RawBroker.open();
  const { bus, exchange } = await connectedBus({ logger });
  const queues = new Set<string>();
  return {
    bus,
    queueName: (label) => uniqueName(`bus_test_${label}`),
    subscribe(options) {
      for (const queue of subscriptionQueueNames(options.queue, options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS)) queues.add(queue);
      return bus.subscribe(options);
    },
    publishRaw: (routingKey, content) => raw.publishRaw(exchange, routingKey, content),
    deadLetters: (queue) => raw.deadLetters(deadLetterQueueName(queue), queue),
    async teardown() {
      await bus.close();
      await raw.deleteAll(queues, [exchange]);
      await raw.close();
    },
  };
};

describeBusContract('amqp', amqpHarness);
describeBusTracingContract('amqp', amqpHarness);

describe('amqp bus', () => {
  let raw: RawBroker;
  const queues = new Set<string>();
  const exchanges = new Set<string>();

  beforeAll(async () => {
    raw = await RawBroker.open();
  });
  afterAll(async () => {
    await raw.deleteAll(queues, exchanges);
    await raw.close();
  });

  it('publishes persistent JSON with the event id and type as message properties', async () => {
    const { bus, exchange } = await connectedBus();
    exchanges.add(exchange);
    const tap = uniqueName('bus_test_tap');
    queues.add(tap);
    await raw.channel.assertQueue(tap, { durable: false });
    await raw.channel.bindQueue(tap, exchange, '#');
    const event = buildEnvelope();
    await bus.publish('subscription.activated.v1', event);
    const message = await waitFor('the tapped message', () => raw.channel.get(tap, { noAck: true }));
    expect(message.properties).toMatchObject({ deliveryMode: 2, contentType: 'application/json', messageId: event.id, type: event.type });
    expect(JSON.parse(message.content.toString('utf8'))).toEqual(event);
    await bus.close();
  });

  it('logs a message no queue is bound for, and rejects it when asked to', async () => {
    const logs = captureLogs('bus-unroutable');
    const lenient = await connectedBus({ logger: logs.logger });
    const strict = await connectedBus({ rejectUnroutable: true });
    exchanges.add(lenient.exchange).add(strict.exchange);
    await lenient.bus.publish('nobody.listens.v1', buildEnvelope());
    expect(logs.lines.some((line) => line.includes('matched no queue') && line.includes('nobody.listens.v1'))).toBe(true);
    await expect(strict.bus.publish('nobody.listens.v1', buildEnvelope())).rejects.toBeInstanceOf(BusUnavailableError);
    await Promise.all([lenient.bus.close(), strict.bus.close()]);
  });

  it('keeps a retry waiting in the broker across a consumer restart', async () => {
    // Long enough that the retry is still in its queue when we look, right after the close.
    const queue = uniqueName('bus_test_restart');
    for (const name of subscriptionQueueNames(queue, [2_000])) queues.add(name);
    const { bus: first, exchange } = await connectedBus();
    exchanges.add(exchange);
    let failed = 0;
    await first.subscribe({
      queue,
      bindings: ['subscription.#'],
      retryDelaysMs: [2_000],
      handler: async () => {
        failed += 1;
        throw new Error('crash before commit');
      },
    });
    await first.publish('subscription.activated.v1', buildEnvelope());
    await waitFor('the failed first attempt', () => failed === 1);
    await first.close(); // the process "dies" while the retry waits

    expect((await raw.channel.checkQueue(retryQueueName(queue, 2_000))).messageCount).toBe(1);
    const { bus: second } = await connectedBus({ exchange });
    const seen: DeliveryInfo[] = [];
    await second.subscribe({
      queue,
      bindings: ['subscription.#'],
      retryDelaysMs: [2_000],
      handler: async (_message, info) => void seen.push(info),
    });
    await waitFor('the retried delivery on the new consumer', () => seen.length === 1);
    expect(seen[0]).toMatchObject({ attempt: 2, routingKey: 'subscription.activated.v1' });
    await second.close();
  });

  it("routes each of the subscription's queues by its name on the subscription's own exchange, which goes with the last of them", async () => {
    const queue = uniqueName('bus_test_own_exchange');
    const own = subscriptionExchangeName(queue);
    const { bus, exchange } = await connectedBus();
    exchanges.add(exchange);
    await bus.subscribe({ queue, bindings: ['nothing.routes.here'], retryDelaysMs: [60_000], handler: async () => undefined });
    await bus.close();
    for (const name of subscriptionQueueNames(queue, [60_000])) raw.channel.publish(own, name, Buffer.from(name), { mandatory: true });
    await raw.channel.waitForConfirms();
    expect((await raw.channel.checkQueue(deadLetterQueueName(queue))).messageCount).toBe(1);
    expect((await raw.channel.checkQueue(retryQueueName(queue, 60_000))).messageCount).toBe(1);
    expect((await raw.channel.checkQueue(queue)).messageCount).toBe(1);
    await raw.deleteAll(subscriptionQueueNames(queue, [60_000]), []);
    // Checking a missing exchange closes the channel: a connection of its own.
    const probe = await RawBroker.open();
    probe.channel.on('error', () => undefined);
    await expect(probe.channel.checkExchange(own)).rejects.toThrow(/NOT_FOUND/);
    await probe.close().catch(() => undefined);
  });

  it('rejects a subscription whose queue conflicts with an existing declaration, and stays usable', async () => {
    const { bus, exchange } = await connectedBus();
    exchanges.add(exchange);
    const queue = uniqueName('bus_test_conflict');
    for (const name of subscriptionQueueNames(queue, DEFAULT_RETRY_DELAYS_MS)) queues.add(name);
    await raw.channel.assertQueue(queue, { durable: false });

    await expect(bus.subscribe({ queue, bindings: ['#'], handler: async () => undefined })).rejects.toThrow(/PRECONDITION/);
    expect(bus.ready()).toBe(true);
    await bus.publish('subscription.activated.v1', buildEnvelope());
    await bus.close();
  });

  it('routes exactly as topicMatches predicts', async () => {
    const exchange = uniqueName('bus_test_topics');
    exchanges.add(exchange);
    await raw.channel.assertExchange(exchange, 'topic', { durable: false });
    const tapped = TOPIC_CASES.map(([pattern, key]) => ({ pattern, key, queue: uniqueName('bus_test_topic') }));
    for (const { pattern, queue } of tapped) {
      queues.add(queue);
      await raw.channel.assertQueue(queue, { durable: false });
      await raw.channel.bindQueue(queue, exchange, pattern);
    }
    for (const { key } of tapped) raw.channel.publish(exchange, key, Buffer.from(key));
    await raw.channel.waitForConfirms();

    for (const { pattern, key, queue } of tapped) {
      const contents: string[] = [];
      for (let m = await raw.channel.get(queue, { noAck: true }); m; m = await raw.channel.get(queue, { noAck: true }))
        contents.push(m.content.toString());
      const brokerSays = contents.includes(key);
      expect({ pattern, key, matches: topicMatches(pattern, key) }).toEqual({ pattern, key, matches: brokerSays });
    }
  });
});
