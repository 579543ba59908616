import type { Logger } from '@acs/logger';
import { tracePublish } from '../bus-tracing.js';
import { encodeEnvelope, validateEnvelope } from '../envelope.js';
import { BusUnavailableError, InvalidEnvelopeError } from '../errors.js';
import { resolveSubscribeOptions } from '../subscribe-options.js';
import type { Bus, BusEnvelope, SubscribeOptions, Subscription } from '../types.js';
import { RABBITMQ_SYSTEM } from './amqp-consumer.js';
import { BusSessions } from './bus-sessions.js';
import { publishProperties } from './publish-properties.js';
import { openRecoveringConnection } from './recovering-connection.js';
import { SubscriptionRecord } from './subscription-record.js';

export interface AmqpBusOptions {
  url: string;
  /** Durable topic exchange every event is published to. */
  exchange: string;
  logger: Logger;
  /** First wait before reconnecting; doubles (with jitter) up to maxReconnectDelayMs. Default 500. */
  reconnectDelayMs?: number;
  maxReconnectDelayMs?: number;
  /** How long publish waits for the broker's confirm before rejecting. Default 10 000. */
  confirmTimeoutMs?: number;
  /** Reject a publish no queue is bound for (it is logged either way). Default false. */
  rejectUnroutable?: boolean;
  /** Shown in the broker's connection list. Default `<exchange>-bus-<pid>`. */
  connectionName?: string;
}

export interface AmqpBus extends Bus {
  readonly connectionName: string;
}

/**
 * RabbitMQ bus. amqplib's recovery reconnects with backoff; on every connection `setup`
 * (BusSessions, bus-sessions.ts) re-declares the exchange, opens the publisher's confirm channel
 * and re-establishes every open subscription before the bus reports ready. While disconnected,
 * publish rejects at once (the outbox relay retries later) and subscribe waits for the connection.
 */
export function createAmqpBus(options: AmqpBusOptions): AmqpBus {
  const { exchange, logger } = options;
  const connectionName = options.connectionName ?? `${exchange}-bus-${process.pid}`;
  const sessions = new BusSessions({ exchange, logger, confirmTimeoutMs: options.confirmTimeoutMs ?? 10_000 });
  const connecting = openRecoveringConnection({
    url: options.url,
    connectionName,
    reconnectDelayMs: options.reconnectDelayMs ?? 500,
    maxReconnectDelayMs: options.maxReconnectDelayMs ?? 30_000,
    logger,
    setup: (model) => sessions.setup(model),
  });

  return {
    connectionName,
    publish: (routingKey, message) => publish(sessions, options, routingKey, message),

    async subscribe(subscribeOptions: SubscribeOptions): Promise<Subscription> {
      if (sessions.closed) throw new BusUnavailableError('the bus is closed');
      const record = new SubscriptionRecord(resolveSubscribeOptions(subscribeOptions));
      sessions.add(record);
      await record.established;
      return {
        async close(): Promise<void> {
          sessions.records.delete(record);
          await record.close(new BusUnavailableError('the subscription was closed'));
        },
      };
    },

    ready(): boolean {
      return !sessions.closed && sessions.current !== null && sessions.current.alive;
    },

    async close(): Promise<void> {
      if (sessions.closed) return;
      await sessions.close(() => new BusUnavailableError('the bus was closed'));
      const connection = await connecting;
      await connection?.close().catch(() => undefined);
    },
  };
}

/** Validates the envelope, then sends it on the current session and waits for the broker's confirm; rejects at once while disconnected. */
async function publish(sessions: BusSessions, options: AmqpBusOptions, routingKey: string, message: BusEnvelope): Promise<void> {
  if (sessions.closed) throw new BusUnavailableError('the bus is closed');
  const checked = validateEnvelope(message);
  if (!checked.ok) throw new InvalidEnvelopeError(checked.reason);
  const { envelope } = checked;
  const { exchange, logger } = options;
  await tracePublish({ system: RABBITMQ_SYSTEM, exchange }, routingKey, envelope.id, async (traceHeaders) => {
    const session = sessions.current;
    if (!session) throw new BusUnavailableError('not connected to the message broker');
    const properties = publishProperties(envelope, traceHeaders, Date.now());
    const outcome = await session.publisher.send(exchange, routingKey, encodeEnvelope(envelope), properties);
    if (outcome === 'unroutable') {
      logger.warn({ routingKey, messageId: envelope.id, type: envelope.type }, 'bus message matched no queue');
      if (options.rejectUnroutable) throw new BusUnavailableError(`no queue is bound for ${routingKey}`);
    }
  });
}
