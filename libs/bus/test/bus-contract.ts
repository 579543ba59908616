import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import {
  BUS_CONSUMED_TOTAL,
  BUS_PUBLISHED_TOTAL,
  BusUnavailableError,
  InvalidEnvelopeError,
  createBusMetrics,
  instrumentBus,
  type Bus,
  type BusEnvelope,
  type DeadLetter,
  type DeliveryInfo,
  type SubscribeOptions,
  type Subscription,
} from '@acs/bus';
import { Registry } from '@acs/metrics';
import { metricValue, sleep, waitFor } from '@acs/testing';
import { buildEnvelope, captureLogs, type CapturedLogs } from './support.js';

/** What the shared suite needs from an implementation. */
export interface BusHarness {
  bus: Bus;
  /** Subscribes through `bus` and remembers the queue so teardown can delete it. */
  subscribe(options: SubscribeOptions): Promise<Subscription>;
  /** A queue name nobody else uses. */
  queueName(label: string): string;
  /** Bytes as a foreign or broken publisher would send them, bypassing the bus's validation. */
  publishRaw(routingKey: string, content: Buffer): Promise<void>;
  /** Everything dead-lettered for `queue` so far, oldest first. */
  deadLetters(queue: string): Promise<DeadLetter[]>;
  teardown(): Promise<void>;
}

interface Received {
  message: BusEnvelope;
  info: DeliveryInfo;
}

/** Short delays keep the suite fast; the production defaults are seconds to minutes. */
const FAST_RETRY = { retryDelaysMs: [30, 60] };

/**
 * The behaviour both buses promise, run against each so the in-process bus of the embedded mode
 * cannot drift from RabbitMQ.
 */
export function describeBusContract(name: string, setUp: (logs: CapturedLogs) => Promise<BusHarness>): void {
  describe(`${name}: Bus contract`, () => {
    let harness: BusHarness;
    let bus: Bus;
    let logs: CapturedLogs;

    beforeEach(async () => {
      logs = captureLogs(`bus-${name}`);
      harness = await setUp(logs);
      bus = harness.bus;
    });
    afterEach(async () => {
      // Undefined when setUp failed (e.g. broker unreachable): that test has already failed.
      await (harness as BusHarness | undefined)?.teardown();
    });

    it('delivers to every queue whose topic bindings match, with the envelope intact', async () => {
      const narrow: Received[] = [];
      const everything: Received[] = [];
      const narrowQueue = harness.queueName('narrow');
      await harness.subscribe({
        queue: narrowQueue,
        bindings: ['subscription.*.v1', 'billing.#'],
        handler: async (message, info) => void narrow.push({ message, info }),
      });
      await harness.subscribe({
        queue: harness.queueName('all'),
        bindings: ['#'],
        handler: async (message, info) => void everything.push({ message, info }),
      });

      const activated = buildEnvelope();
      await bus.publish('subscription.activated.v1', activated);
      await bus.publish('subscription.activated.extra.v1', buildEnvelope()); // `*` is exactly one word
      await bus.publish('invoice.paid.v1', buildEnvelope({ type: 'invoice.paid.v1' }));
      await bus.publish('billing', buildEnvelope()); // `#` also matches zero words
      await bus.publish('billing.run.done.v1', buildEnvelope());

      await waitFor('5 messages on the catch-all queue', () => everything.length === 5);
      await waitFor('3 messages on the narrow queue', () => narrow.length === 3);
      expect(narrow.map((r) => r.info.routingKey)).toEqual(['subscription.activated.v1', 'billing', 'billing.run.done.v1']);
      expect(narrow[0]?.message).toEqual(activated);
      expect(narrow[0]?.info).toEqual({ attempt: 1, routingKey: 'subscription.activated.v1', redelivered: false });
      await sleep(100);
      expect(narrow).toHaveLength(3);
    });

    it('acks only after success: a handler failing once is called twice and the message is handled once', async () => {
      const queue = harness.queueName('flaky');
      const attempts: DeliveryInfo[] = [];
      let handled = 0;
      await harness.subscribe({
        queue,
        bindings: ['subscription.#'],
        ...FAST_RETRY,
        handler: async (_message, info) => {
          attempts.push(info);
          if (info.attempt === 1) throw new Error('database briefly unavailable');
          handled += 1;
        },
      });
      const event = buildEnvelope();
      const started = Date.now();
      await bus.publish('subscription.activated.v1', event);

      await waitFor('the second attempt to succeed', () => handled === 1);
      expect(Date.now() - started).toBeGreaterThanOrEqual(25); // waited the first backoff step
      await sleep(300);
      expect(attempts.map((a) => a.attempt)).toEqual([1, 2]);
      expect(attempts[1]?.routingKey).toBe('subscription.activated.v1');
      expect(handled).toBe(1);
      expect(await harness.deadLetters(queue)).toEqual([]);
      const retryLine = logs.lines.find((line) => line.includes('retry scheduled'));
      expect(retryLine).toContain(event.id);
      expect(retryLine).toContain('database briefly unavailable');
    });

    it('parks poison messages in the dead-letter queue without retrying, and keeps delivering', async () => {
      const queue = harness.queueName('poison');
      const received: BusEnvelope[] = [];
      await harness.subscribe({
        queue,
        bindings: ['subscription.#'],
        ...FAST_RETRY,
        handler: async (message) => void received.push(message),
      });

      await harness.publishRaw('subscription.activated.v1', Buffer.from('{not json'));
      await harness.publishRaw(
        'subscription.activated.v1',
        Buffer.from(JSON.stringify({ id: 'x', type: 'unversioned', occurredAt: 'yesterday' })),
      );
      const valid = buildEnvelope();
      await bus.publish('subscription.activated.v1', valid);

      await waitFor('the valid message after the poison ones', () => received.length === 1);
      expect(received[0]).toEqual(valid);
      const parked = await waitFor('two dead letters', async () => {
        const letters = await harness.deadLetters(queue);
        return letters.length === 2 ? letters : null;
      });
      expect(parked.map((p) => [p.reason, p.attempts, p.routingKey, p.queue])).toEqual([
        ['poison', 0, 'subscription.activated.v1', queue],
        ['poison', 0, 'subscription.activated.v1', queue],
      ]);
      expect(parked[0]?.content).toBe('{not json');
      expect(parked[0]?.lastError).toMatch(/^invalid JSON/);
      expect(parked[1]?.lastError).toMatch(/^invalid envelope: .*type/);
      expect(logs.lines.some((line) => line.includes('parked in dead-letter queue') && line.includes('"poison"'))).toBe(true);
    });

    it('parks a message after maxAttempts failures, with the last error recorded', async () => {
      const queue = harness.queueName('doomed');
      const attempts: number[] = [];
      await harness.subscribe({
        queue,
        bindings: ['subscription.#'],
        maxAttempts: 3,
        ...FAST_RETRY,
        handler: async (_message, info) => {
          attempts.push(info.attempt);
          throw new Error(`refused on attempt ${info.attempt}`);
        },
      });
      const event = buildEnvelope();
      await bus.publish('subscription.cancelled.v1', event);

      const [parked] = await waitFor('a dead letter', async () => {
        const letters = await harness.deadLetters(queue);
        return letters.length > 0 ? letters : null;
      });
      expect(attempts).toEqual([1, 2, 3]);
      expect(parked).toMatchObject({
        queue,
        routingKey: 'subscription.cancelled.v1',
        reason: 'max-attempts',
        attempts: 3,
        lastError: 'Error: refused on attempt 3',
      });
      expect(JSON.parse(parked?.content ?? '')).toEqual(event);
      await sleep(200);
      expect(attempts).toEqual([1, 2, 3]);
      // Identifiers and the error reach the logs; the payload never does.
      expect(logs.lines.filter((line) => line.includes('retry scheduled'))).toHaveLength(2);
      expect(logs.lines.some((line) => line.includes('parked in dead-letter queue') && line.includes(event.id))).toBe(true);
      expect(logs.lines.join('\n')).not.toContain('tok_secret_do_not_log');
    });

    it('counts deliveries by queue and outcome (ack, retry, dead_lettered) and publishes by outcome', async () => {
      const registry = new Registry();
      const metrics = createBusMetrics(registry);
      const counted = instrumentBus(bus, metrics);
      const flaky = harness.queueName('counted_flaky');
      const doomed = harness.queueName('counted_doomed');
      await harness.subscribe({
        queue: flaky,
        bindings: ['subscription.#'],
        ...FAST_RETRY,
        metrics,
        handler: async (_m, info) => {
          if (info.attempt === 1) throw new Error('once');
        },
      });
      await harness.subscribe({
        queue: doomed,
        bindings: ['billing.#'],
        maxAttempts: 2,
        ...FAST_RETRY,
        metrics,
        handler: async () => {
          throw new Error('always');
        },
      });

      await counted.publish('subscription.activated.v1', buildEnvelope());
      await counted.publish('billing.run.v1', buildEnvelope());
      await harness.publishRaw('billing.run.v1', Buffer.from('{not json'));
      await expect(counted.publish('billing.run.v1', { ...buildEnvelope(), type: 'unversioned' })).rejects.toBeInstanceOf(
        InvalidEnvelopeError,
      );

      const consumed = async (queue: string, outcome: string) =>
        metricValue(await registry.metrics(), BUS_CONSUMED_TOTAL, { queue, outcome });
      await waitFor('the flaky message handled on its second attempt', async () => (await consumed(flaky, 'ack')) === 1);
      await waitFor('the doomed and the poison message parked', async () => (await consumed(doomed, 'dead_lettered')) === 2);
      await sleep(100);
      const text = await registry.metrics();
      expect(metricValue(text, BUS_CONSUMED_TOTAL, { queue: flaky })).toBe(2); // retry 1 + ack 1
      expect(metricValue(text, BUS_CONSUMED_TOTAL, { queue: flaky, outcome: 'retry' })).toBe(1);
      expect(metricValue(text, BUS_CONSUMED_TOTAL, { queue: doomed, outcome: 'retry' })).toBe(1);
      expect(metricValue(text, BUS_CONSUMED_TOTAL, { queue: doomed, outcome: 'ack' })).toBeUndefined();
      expect(metricValue(text, BUS_PUBLISHED_TOTAL, { outcome: 'ok' })).toBe(2);
      expect(metricValue(text, BUS_PUBLISHED_TOTAL, { outcome: 'failed' })).toBe(1);
    });

    it('keeps messages for a subscriber that comes (back) after they were published', async () => {
      const queue = harness.queueName('durable');
      const first = await harness.subscribe({ queue, bindings: ['subscription.#'], handler: async () => undefined });
      await first.close();

      const events = [buildEnvelope(), buildEnvelope()];
      for (const event of events) await bus.publish('subscription.activated.v1', event);
      await sleep(50);

      const received: BusEnvelope[] = [];
      await harness.subscribe({ queue, bindings: ['subscription.#'], handler: async (message) => void received.push(message) });
      await waitFor('both messages published while nobody consumed', () => received.length === 2);
      expect(received).toEqual(events);
    });

    it('lets a closing subscription finish the handlers in flight', async () => {
      const queue = harness.queueName('draining');
      let finished = 0;
      const started: string[] = [];
      const subscription = await harness.subscribe({
        queue,
        bindings: ['subscription.#'],
        handler: async (message) => {
          started.push(message.id);
          await sleep(100);
          finished += 1;
        },
      });
      await bus.publish('subscription.activated.v1', buildEnvelope());
      await waitFor('the handler to start', () => started.length === 1);
      await subscription.close();
      expect(finished).toBe(1);
    });

    it('rejects a malformed envelope at publish time', async () => {
      const bad = { ...buildEnvelope(), type: 'subscription.activated' };
      await expect(bus.publish('subscription.activated', bad)).rejects.toBeInstanceOf(InvalidEnvelopeError);
      await expect(bus.publish('x', { ...buildEnvelope(), payload: undefined })).rejects.toBeInstanceOf(InvalidEnvelopeError);
    });

    it('rejects bad subscribe options', async () => {
      await expect(bus.subscribe({ queue: harness.queueName('bad'), bindings: [], handler: async () => undefined })).rejects.toThrow(
        /bindings/,
      );
      await expect(
        bus.subscribe({ queue: harness.queueName('bad'), bindings: ['#'], maxAttempts: 0, handler: async () => undefined }),
      ).rejects.toThrow(/maxAttempts/);
    });

    it('reports ready, and refuses work once closed', async () => {
      expect(await bus.ready()).toBe(true);
      await bus.close();
      expect(await bus.ready()).toBe(false);
      await expect(bus.publish('subscription.activated.v1', buildEnvelope())).rejects.toBeInstanceOf(BusUnavailableError);
      await expect(
        bus.subscribe({ queue: harness.queueName('late'), bindings: ['#'], handler: async () => undefined }),
      ).rejects.toBeInstanceOf(BusUnavailableError);
      await bus.close(); // idempotent
    });
  });
}
