import type { Channel } from 'amqplib';
import { deadLetterQueueName, retryQueueName } from '../queue-names.js';
import type { ResolvedSubscribeOptions } from '../subscribe-options.js';

/** Idempotent: run on every (re)connect, so a broker that lost its definitions gets them back. */
export async function assertExchange(channel: Channel, exchange: string): Promise<void> {
  await channel.assertExchange(exchange, 'topic', { durable: true });
}

/**
 * The subscriber's queue, bound with its patterns; its dead-letter queue; and one retry queue
 * per distinct delay whose queue-wide TTL dead-letters expired messages back to the queue via the
 * default exchange. The retry state therefore lives in the broker and survives a consumer restart.
 */
export async function assertSubscriptionTopology(channel: Channel, exchange: string, options: ResolvedSubscribeOptions): Promise<void> {
  const { queue } = options;
  await assertExchange(channel, exchange);
  await channel.assertQueue(queue, { durable: true });
  for (const pattern of options.bindings) await channel.bindQueue(queue, exchange, pattern);
  await channel.assertQueue(deadLetterQueueName(queue), { durable: true });
  for (const delay of new Set(options.retryDelaysMs)) {
    await channel.assertQueue(retryQueueName(queue, delay), {
      durable: true,
      messageTtl: delay,
      deadLetterExchange: '',
      deadLetterRoutingKey: queue,
    });
  }
}
