import type { ChannelModel } from 'amqplib';
import type { Logger } from '@acs/logger';
import { tracePublish, type TraceDestination } from '../bus-tracing.js';
import { encodeEnvelope, validateEnvelope } from '../envelope.js';
import { BusUnavailableError, InvalidEnvelopeError } from '../errors.js';
import { errorText } from '../headers.js';
import { resolveSubscribeOptions } from '../subscribe-options.js';
import type { Bus, BusEnvelope, SubscribeOptions, Subscription } from '../types.js';
import { AmqpConsumer, RABBITMQ_SYSTEM } from './amqp-consumer.js';
import { ConfirmedSender } from './confirmed-sender.js';
import { openRecoveringConnection } from './recovering-connection.js';
import { SubscriptionRecord, type SessionRef } from './subscription-record.js';
import { assertExchange } from './topology.js';

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

interface Session extends SessionRef {
  model: ChannelModel;
  publisher: ConfirmedSender;
}

const nextTick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * RabbitMQ bus. amqplib's recovery reconnects with backoff; on every connection `setup`
 * re-declares the exchange, opens the publisher's confirm channel and re-establishes every open
 * subscription before the bus reports ready. While disconnected, publish rejects at once (the
 * outbox relay retries later) and subscribe waits for the connection.
 */
export function createAmqpBus(options: AmqpBusOptions): AmqpBus {
  const { exchange, logger } = options;
  const confirmTimeoutMs = options.confirmTimeoutMs ?? 10_000;
  const connectionName = options.connectionName ?? `${exchange}-bus-${process.pid}`;
  const records = new Set<SubscriptionRecord>();
  const traceDestination: TraceDestination = { system: RABBITMQ_SYSTEM, exchange };
  let current: Session | null = null;
  let closed = false;

  /** A channel died under a live connection: rebuild everything through one recovery path. */
  function onChannelLost(session: Session, reason: string): void {
    // Defer: when the whole connection drops, channels close first and the connection's own
    // close event follows in the same tick; only a channel lost on a live connection needs this.
    setImmediate(() => {
      if (closed || !session.alive) return;
      logger.warn({ reason }, 'bus channel lost; reconnecting to restore the topology');
      session.alive = false;
      if (current === session) current = null;
      session.model.close().catch(() => undefined);
    });
  }

  async function establish(session: Session, record: SubscriptionRecord): Promise<void> {
    const consumer = await AmqpConsumer.start(session.model, record.options, {
      logger,
      exchange,
      confirmTimeoutMs,
      onChannelLost: (reason) => onChannelLost(session, reason),
    });
    if (record.closed || closed) {
      await consumer.close();
      return;
    }
    record.attach(session, consumer);
    logger.info({ queue: record.options.queue, bindings: record.options.bindings }, 'bus subscription active');
  }

  /**
   * Whether a failed establish is the subscription's own fault (bad or conflicting arguments, the
   * broker closed just that channel) rather than a lost connection, which reconnecting fixes.
   */
  async function isOwnFault(session: Session): Promise<boolean> {
    await nextTick();
    return session.alive && !closed;
  }

  async function setup(model: ChannelModel): Promise<void> {
    model.on('error', (err: Error) => logger.warn({ err: errorText(err) }, 'bus connection error'));
    const channel = await model.createConfirmChannel();
    const session: Session = { model, alive: true, publisher: new ConfirmedSender(channel, confirmTimeoutMs) };
    model.on('close', () => {
      session.alive = false;
      if (current === session) current = null;
    });
    channel.on('error', (err: Error) => logger.warn({ err: errorText(err) }, 'bus publisher channel error'));
    channel.on('close', () => onChannelLost(session, 'publisher channel closed'));
    await assertExchange(channel, exchange);
    // A Set iterates entries added while we await, so a subscribe() arriving mid-setup is included.
    for (const record of records) {
      if (record.closed || closed) continue;
      try {
        await establish(session, record);
      } catch (err) {
        if (!(await isOwnFault(session)) || record.everEstablished) throw err;
        records.delete(record);
        record.fail(err instanceof Error ? err : new Error(String(err)));
      }
    }
    if (closed) return;
    current = session;
    logger.info({ exchange, subscriptions: records.size }, 'bus connected');
  }

  async function subscribeOnCurrent(session: Session, record: SubscriptionRecord): Promise<void> {
    try {
      await establish(session, record);
    } catch (err) {
      // A lost connection is not the caller's problem: the next setup establishes the record.
      if (!(await isOwnFault(session))) return;
      records.delete(record);
      record.fail(err instanceof Error ? err : new Error(String(err)));
    }
  }

  const connecting = openRecoveringConnection({
    url: options.url,
    connectionName,
    reconnectDelayMs: options.reconnectDelayMs ?? 500,
    maxReconnectDelayMs: options.maxReconnectDelayMs ?? 30_000,
    logger,
    setup,
  });

  return {
    connectionName,

    async publish(routingKey: string, message: BusEnvelope): Promise<void> {
      if (closed) throw new BusUnavailableError('the bus is closed');
      const checked = validateEnvelope(message);
      if (!checked.ok) throw new InvalidEnvelopeError(checked.reason);
      const { envelope } = checked;
      await tracePublish(traceDestination, routingKey, envelope.id, async (traceHeaders) => {
        const session = current;
        if (!session) throw new BusUnavailableError('not connected to the message broker');
        const outcome = await session.publisher.send(exchange, routingKey, encodeEnvelope(envelope), {
          persistent: true,
          contentType: 'application/json',
          messageId: envelope.id,
          type: envelope.type,
          timestamp: Math.floor(Date.now() / 1000),
          headers: traceHeaders,
        });
        if (outcome === 'unroutable') {
          logger.warn({ routingKey, messageId: envelope.id, type: envelope.type }, 'bus message matched no queue');
          if (options.rejectUnroutable) throw new BusUnavailableError(`no queue is bound for ${routingKey}`);
        }
      });
    },

    async subscribe(subscribeOptions: SubscribeOptions): Promise<Subscription> {
      if (closed) throw new BusUnavailableError('the bus is closed');
      const record = new SubscriptionRecord(resolveSubscribeOptions(subscribeOptions));
      records.add(record);
      if (current) void subscribeOnCurrent(current, record);
      await record.established;
      return {
        async close(): Promise<void> {
          records.delete(record);
          await record.close(new BusUnavailableError('the subscription was closed'));
        },
      };
    },

    ready(): boolean {
      return !closed && current !== null && current.alive;
    },

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      current = null;
      const open = [...records];
      records.clear();
      await Promise.allSettled(open.map((record) => record.close(new BusUnavailableError('the bus was closed'))));
      const connection = await connecting;
      await connection?.close().catch(() => undefined);
    },
  };
}
