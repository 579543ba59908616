import { createLogger, type Logger } from '@acs/logger';
import { tracePublish, type TraceDestination } from '../bus-tracing.js';
import { encodeEnvelope, validateEnvelope } from '../envelope.js';
import { InvalidEnvelopeError } from '../errors.js';
import { resolveSubscribeOptions } from '../subscribe-options.js';
import type { Bus, BusEnvelope, DeadLetter, SubscribeOptions, Subscription } from '../types.js';
import { MemoryBroker } from './memory-broker.js';

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
  const traceDestination: TraceDestination = { system: MEMORY_BUS_SYSTEM, exchange: options.exchange ?? 'acs.events' };
  const broker = new MemoryBroker(
    options.logger ?? createLogger({ name: 'bus', level: 'silent' }),
    options.delayScale ?? 1,
    traceDestination,
  );

  return {
    async publish(routingKey: string, message: BusEnvelope): Promise<void> {
      broker.assertOpen();
      const checked = validateEnvelope(message);
      if (!checked.ok) throw new InvalidEnvelopeError(checked.reason);
      const { envelope } = checked;
      const content = encodeEnvelope(envelope).toString('utf8');
      await tracePublish(traceDestination, routingKey, envelope.id, async (headers) =>
        broker.route({ content, routingKey, attempt: 1, messageId: envelope.id, headers }),
      );
    },

    async publishRaw(routingKey: string, content: string | Buffer): Promise<void> {
      broker.assertOpen();
      broker.route({ content: typeof content === 'string' ? content : content.toString('utf8'), routingKey, attempt: 1 });
    },

    async subscribe(subscribeOptions: SubscribeOptions): Promise<Subscription> {
      broker.assertOpen();
      return broker.attach(resolveSubscribeOptions(subscribeOptions));
    },

    deadLetters(queue: string): DeadLetter[] {
      return broker.deadLetters(queue);
    },

    ready(): boolean {
      return broker.open;
    },

    close(): Promise<void> {
      return broker.close();
    },
  };
}
