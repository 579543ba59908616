import type { Channel, Options } from 'amqplib';
import { deadLetterQueueName, retryQueueName, subscriptionExchangeName } from '../queue-names.js';
import type { ResolvedSubscribeOptions } from '../subscribe-options.js';

/** Idempotent: run on every (re)connect, so a broker that lost its definitions gets them back. */
export async function assertExchange(channel: Channel, exchange: string): Promise<void> {
  await channel.assertExchange(exchange, 'topic', { durable: true });
}

/**
 * The subscriber's queue, bound with its patterns; its dead-letter queue; and one retry queue per
 * distinct delay whose queue-wide TTL dead-letters expired messages back to the queue. The retry
 * state therefore lives in the broker and survives a consumer restart.
 *
 * Every move between these queues goes through the subscriber's own direct exchange (`<queue>.x`),
 * where each of them is bound by its own name, never through the default exchange: write on that
 * one would let the service put a message into any queue of the broker (docs/security.md). The
 * exchange is auto-delete: it goes when the last of its queues is deleted, so removing a
 * subscription's queues removes it too. It is declared right after the queue and bound at once, since
 * auto-delete removes an exchange only when its last binding goes, never one that had none.
 */
export async function assertSubscriptionTopology(channel: Channel, exchange: string, options: ResolvedSubscribeOptions): Promise<void> {
  const { queue } = options;
  const own = subscriptionExchangeName(queue);
  await assertExchange(channel, exchange);
  await channel.assertQueue(queue, { durable: true });
  await channel.assertExchange(own, 'direct', { durable: true, autoDelete: true });
  await channel.bindQueue(queue, own, queue);
  for (const pattern of options.bindings) await channel.bindQueue(queue, exchange, pattern);
  await assertOwnQueue(channel, own, deadLetterQueueName(queue), {});
  for (const delay of new Set(options.retryDelaysMs)) {
    await assertOwnQueue(channel, own, retryQueueName(queue, delay), {
      messageTtl: delay,
      deadLetterExchange: own,
      deadLetterRoutingKey: queue,
    });
  }
}

/** A durable queue of the subscription, bound to its exchange by its own name. */
async function assertOwnQueue(channel: Channel, own: string, name: string, options: Options.AssertQueue): Promise<void> {
  await channel.assertQueue(name, { durable: true, ...options });
  await channel.bindQueue(name, own, name);
}
