import { AsyncLocalStorage } from 'node:async_hooks';
import { describe, expect, it, jest } from '@jest/globals';
import { BUS_CONSUMED_TOTAL, createBusMetrics, createMemoryBus, instrumentBus, type Subscription } from '@acs/bus';
import { Registry } from '@acs/metrics';
import { metricValue, sleep, uniqueName, waitFor } from '@acs/testing';
import { describeBusContract, type BusHarness } from './bus-contract.js';
import { describeBusTracingContract } from './bus-tracing-contract.js';
import { buildEnvelope, captureLogs, type CapturedLogs } from './support.js';

const memoryHarness = async ({ logger }: CapturedLogs): Promise<BusHarness> => {
  const bus = createMemoryBus({ logger });
  const subscriptions: Subscription[] = [];
  return {
    bus,
    queueName: (label) => uniqueName(`bus_mem_${label}`),
    async subscribe(options) {
      const subscription = await bus.subscribe(options);
      subscriptions.push(subscription);
      return subscription;
    },
    publishRaw: (routingKey, content) => bus.publishRaw(routingKey, content),
    deadLetters: async (queue) => bus.deadLetters(queue),
    async teardown() {
      await Promise.all(subscriptions.map((s) => s.close()));
      await bus.close();
    },
  };
};

describeBusContract('memory', memoryHarness);
describeBusTracingContract('memory', memoryHarness);

describe('memory bus', () => {
  it('scales the default (production) retry delays with delayScale', async () => {
    const bus = createMemoryBus({ logger: captureLogs('bus-memory').logger, delayScale: 0.001 });
    const attempts: number[] = [];
    await bus.subscribe({
      queue: 'scaled',
      bindings: ['#'],
      handler: async (_message, info) => {
        attempts.push(info.attempt);
        throw new Error('always');
      },
    });
    await bus.publish('subscription.activated.v1', buildEnvelope());
    // Defaults are 5 attempts over 1 s + 5 s + 30 s + 120 s; scaled, about 156 ms.
    await waitFor('the message to be parked', () => bus.deadLetters('scaled').length === 1, 3_000);
    expect(attempts).toEqual([1, 2, 3, 4, 5]);
    await bus.close();
  });

  it('hands out copies of the dead letters and delivers asynchronously', async () => {
    const bus = createMemoryBus();
    let called = false;
    await bus.subscribe({
      queue: 'async',
      bindings: ['#'],
      handler: async () => {
        called = true;
      },
    });
    await bus.publish('a.b.v1', buildEnvelope());
    expect(called).toBe(false); // publish resolved after queueing, before the handler ran
    await waitFor('the delivery', () => called);
    bus
      .deadLetters('async')
      .push({ queue: 'x', routingKey: 'x', content: '', reason: 'poison', attempts: 0, lastError: '', deadLetteredAt: '' });
    expect(bus.deadLetters('async')).toEqual([]);
    await bus.close();
  });

  it('instrumentBus counts the deliveries of the subscriptions made through it', async () => {
    const bus = createMemoryBus();
    const registry = new Registry();
    const counted = instrumentBus(bus, createBusMetrics(registry));
    let handled = 0;
    await counted.subscribe({
      queue: 'counted',
      bindings: ['#'],
      handler: async () => {
        handled += 1;
      },
    });
    await bus.publish('a.b.v1', buildEnvelope());
    await waitFor('the delivery', () => handled === 1);
    expect(metricValue(await registry.metrics(), BUS_CONSUMED_TOTAL, { queue: 'counted', outcome: 'ack' })).toBe(1);
    await counted.close();
    expect(bus.ready()).toBe(false);
  });

  it('drops pending retries on close, leaving no timer behind', async () => {
    // Fake timers for setTimeout only: the consumer's deliveries run on setImmediate, which stays real.
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
    try {
      const bus = createMemoryBus();
      let calls = 0;
      await bus.subscribe({
        queue: 'pending',
        bindings: ['#'],
        retryDelaysMs: [60_000],
        handler: async () => {
          calls += 1;
          throw new Error('later');
        },
      });
      await bus.publish('a.b.v1', buildEnvelope());
      await turnsUntil(() => calls === 1 && jest.getTimerCount() === 1);
      await bus.close();
      expect(jest.getTimerCount()).toBe(0);
      jest.advanceTimersByTime(120_000);
      await turnsUntil(() => true);
      expect(calls).toBe(1);
    } finally {
      jest.useRealTimers();
    }
  });
});

/** Lets the event loop turn (setImmediate, which the fake timers leave real) until `done` holds; fails after 1,000 turns. */
async function turnsUntil(done: () => boolean): Promise<void> {
  for (let turn = 0; turn < 1_000; turn += 1) {
    await new Promise((resolve) => setImmediate(resolve));
    if (done()) return;
  }
  throw new Error('the condition never held within 1,000 event-loop turns');
}

describe('memory bus async context', () => {
  it('runs deliveries in the subscriber’s async context, not in the publisher’s or a retry timer’s', async () => {
    const store = new AsyncLocalStorage<string>();
    const bus = createMemoryBus({ delayScale: 0.001 });
    const seen: (string | undefined)[] = [];
    await store.run('subscriber', () =>
      bus.subscribe({
        queue: 'context',
        bindings: ['#'],
        handler: async (_message, info) => {
          seen.push(store.getStore());
          if (info.attempt === 1) throw new Error('once');
        },
      }),
    );
    await sleep(20); // the subscription's first (empty) pump is over: the publish has to wake the queue
    await store.run('publisher', () => bus.publish('a.b.v1', buildEnvelope()));
    await waitFor('the retried delivery', () => seen.length === 2);
    expect(seen).toEqual(['subscriber', 'subscriber']);
    await bus.close();
  });
});
