import { describe, it, expect } from '@jest/globals';
import { captureLogger, unusedPort } from '@acs/testing';
import { createAmqpBus } from '../src/amqp/amqp-bus.js';
import { consumeLater } from '../src/late-subscription.js';

describe('a consumer started while the broker is unreachable (the real AMQP bus)', () => {
  it("lets the service's close go on at once: the consumer's step returns, then the bus closes and the subscribe fails quietly", async () => {
    const { logger, lines } = captureLogger('late-subscription-amqp');
    // A port nothing listens on: the bus keeps trying to connect, and the subscribe waits for it.
    const bus = createAmqpBus({ url: `amqp://guest:guest@127.0.0.1:${await unusedPort()}`, exchange: 'late-subscription-test', logger });
    const closeConsumer = consumeLater(
      bus.subscribe({ queue: 'late-subscription-test', bindings: ['late.#'], handler: async () => undefined }),
      logger,
    );
    await new Promise((r) => setTimeout(r, 200));
    // Before, this step awaited the subscribe: a service's close waited here until runStandalone gave up on it.
    const step = await Promise.race([closeConsumer().then(() => 'closed'), new Promise((r) => setTimeout(() => r('still waiting'), 2000))]);
    expect(step).toBe('closed');
    await bus.close();
    await new Promise((r) => setImmediate(r));
    expect(lines.filter((line) => /could not subscribe/.test(String(line.msg)))).toEqual([]);
  });
});
