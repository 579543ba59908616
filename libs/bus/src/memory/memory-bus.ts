import { createLogger, type Logger } from '@acs/logger';
import { tracePublish, type TraceDestination } from '../bus-tracing.js';
import { encodeEnvelope, validateEnvelope } from '../envelope.js';
import { BusUnavailableError, InvalidEnvelopeError } from '../errors.js';
import { resolveSubscribeOptions } from '../subscribe-options.js';
import type { Bus, BusEnvelope, DeadLetter, SubscribeOptions, Subscription } from '../types.js';
import { MemoryConsumer } from './memory-consumer.js';
import { MemoryQueue, type StoredMessage } from './memory-queue.js';

export interface MemoryBusOptions {
  logger?: Logger;
  /** Multiplies every retry delay; tests pass e.g. 0.001 to keep production delays but not wait for them. */
  delayScale?: number;
  /** Names the exchange in spans (messaging.destination.name), as BUS_EXCHANGE does for RabbitMQ. Default `acs.events`. */
  exchange?: string;
}

/** messaging.system of the in-process bus's spans: never `rabbitmq`, so a trace does not claim a broker that is not there. */
const MEMORY_BUS_SYSTEM = 'acs_memory_bus';

export interface MemoryBus extends Bus {
  /** What landed in `<queue>.dlq`, oldest first (a copy). */
  deadLetters(queue: string): DeadLetter[];
  /** Puts arbitrary bytes on the bus, bypassing validation: lets tests exercise the poison path. */
  publishRaw(routingKey: string, content: string | Buffer): Promise<void>;
}

/**
 * The single-process bus for the embedded mode: one topic exchange, durable-for-the-process
 * queues, the same retry, backoff and dead-letter rules as the RabbitMQ bus. Nothing survives the
 * process, which is the embedded mode's stated trade-off.
 */
export function createMemoryBus(options: MemoryBusOptions = {}): MemoryBus {
  const logger = options.logger ?? createLogger({ name: 'bus', level: 'silent' });
  const delayScale = options.delayScale ?? 1;
  const traceDestination: TraceDestination = { system: MEMORY_BUS_SYSTEM, exchange: options.exchange ?? 'acs.events' };
  const queues = new Map<string, MemoryQueue>();
  const consumers = new Set<MemoryConsumer>();
  const retryTimers = new Set<NodeJS.Timeout>();
  let closed = false;

  function assertOpen(): void {
    if (closed) throw new BusUnavailableError('the bus is closed');
  }

  function route(message: StoredMessage): void {
    for (const queue of queues.values()) {
      if (queue.routes(message.routingKey)) queue.enqueue({ ...message });
    }
  }

  function scheduleRetry(queue: MemoryQueue, message: StoredMessage, delayMs: number): void {
    if (closed) return;
    const timer = setTimeout(() => {
      retryTimers.delete(timer);
      queue.enqueue(message);
    }, delayMs * delayScale);
    retryTimers.add(timer);
  }

  return {
    async publish(routingKey: string, message: BusEnvelope): Promise<void> {
      assertOpen();
      const checked = validateEnvelope(message);
      if (!checked.ok) throw new InvalidEnvelopeError(checked.reason);
      const { envelope } = checked;
      const content = encodeEnvelope(envelope).toString('utf8');
      await tracePublish(traceDestination, routingKey, envelope.id, async (headers) =>
        route({ content, routingKey, attempt: 1, messageId: envelope.id, headers }),
      );
    },

    async publishRaw(routingKey: string, content: string | Buffer): Promise<void> {
      assertOpen();
      route({ content: typeof content === 'string' ? content : content.toString('utf8'), routingKey, attempt: 1 });
    },

    async subscribe(subscribeOptions: SubscribeOptions): Promise<Subscription> {
      assertOpen();
      const resolved = resolveSubscribeOptions(subscribeOptions);
      let queue = queues.get(resolved.queue);
      if (!queue) {
        queue = new MemoryQueue(resolved.queue);
        queues.set(resolved.queue, queue);
      }
      // Bindings add up, as repeated queue.bind calls do on a broker.
      for (const pattern of resolved.bindings) queue.bindings.add(pattern);
      const consumer = new MemoryConsumer(queue, resolved, { logger, scheduleRetry, traceDestination });
      consumers.add(consumer);
      return {
        async close(): Promise<void> {
          consumers.delete(consumer);
          await consumer.close();
        },
      };
    },

    deadLetters(queue: string): DeadLetter[] {
      return [...(queues.get(queue)?.deadLetters ?? [])];
    },

    ready(): boolean {
      return !closed;
    },

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await Promise.all([...consumers].map((consumer) => consumer.close()));
      consumers.clear();
      for (const timer of retryTimers) clearTimeout(timer);
      retryTimers.clear();
    },
  };
}
