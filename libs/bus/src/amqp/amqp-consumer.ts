import type { ChannelModel, ConfirmChannel, ConsumeMessage } from 'amqplib';
import type { Logger } from '@acs/logger';
import { traceDelivery, type DeliveryResult, type TraceDestination } from '../bus-tracing.js';
import { decodeEnvelope } from '../envelope.js';
import { failureOutcome, logParked, logRetry, type MessageRef } from '../failure-policy.js';
import { attemptOf, deadLetterHeaders, errorText, originalRoutingKey, retryHeaders, type Headers } from '../headers.js';
import { deadLetterQueueName, retryQueueName, subscriptionExchangeName } from '../queue-names.js';
import type { ResolvedSubscribeOptions } from '../subscribe-options.js';
import type { ConsumeOutcome, DeadLetterReason } from '../types.js';
import { ConfirmedSender, SEND_ID_HEADER } from './confirmed-sender.js';
import { assertSubscriptionTopology } from './topology.js';

/** messaging.system of this bus's spans. */
export const RABBITMQ_SYSTEM = 'rabbitmq';

export interface ConsumerDeps {
  logger: Logger;
  exchange: string;
  confirmTimeoutMs: number;
  /** The channel died under a live connection; the bus rebuilds everything by reconnecting. */
  onChannelLost(reason: string): void;
}

/**
 * One subscription on one connection. Each delivery is acked only after the handler resolves, or
 * after the message has been moved (with a confirm) to a retry queue or the dead-letter queue, so
 * a crash at any point leaves the message in the broker rather than nowhere.
 */
export class AmqpConsumer {
  private readonly inflight = new Set<Promise<void>>();
  private readonly sender: ConfirmedSender;
  private readonly traceDestination: TraceDestination;
  /** Where failed messages are moved: the subscription's own exchange, never the default one (topology.ts). */
  private readonly ownExchange: string;
  private consumerTag: string | null = null;
  private closing = false;

  private constructor(
    private readonly channel: ConfirmChannel,
    private readonly options: ResolvedSubscribeOptions,
    private readonly deps: ConsumerDeps,
  ) {
    this.sender = new ConfirmedSender(channel, deps.confirmTimeoutMs);
    this.traceDestination = { system: RABBITMQ_SYSTEM, exchange: deps.exchange };
    this.ownExchange = subscriptionExchangeName(options.queue);
  }

  static async start(model: ChannelModel, options: ResolvedSubscribeOptions, deps: ConsumerDeps): Promise<AmqpConsumer> {
    const channel = await model.createConfirmChannel();
    channel.on('error', (err: Error) => deps.logger.warn({ queue: options.queue, err: errorText(err) }, 'bus consumer channel error'));
    try {
      await assertSubscriptionTopology(channel, deps.exchange, options);
      await channel.prefetch(options.prefetch);
      const consumer = new AmqpConsumer(channel, options, deps);
      const reply = await channel.consume(options.queue, (message) => consumer.onMessage(message));
      consumer.consumerTag = reply.consumerTag;
      // Watched only once consuming: a failure before this point rejects start() instead.
      channel.on('close', () => {
        if (!consumer.closing) deps.onChannelLost(`consumer channel of ${options.queue} closed`);
      });
      return consumer;
    } catch (err) {
      await channel.close().catch(() => undefined);
      throw err;
    }
  }

  /** Stops deliveries, lets running handlers finish (and ack), then closes the channel. */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    if (this.consumerTag) await this.channel.cancel(this.consumerTag).catch(() => undefined);
    await Promise.allSettled([...this.inflight]);
    await this.channel.close().catch(() => undefined);
  }

  private onMessage(message: ConsumeMessage | null): void {
    if (message === null) {
      // The broker cancelled us (queue deleted): reconnecting re-declares the queue and resumes.
      if (!this.closing) this.deps.onChannelLost(`consumer of ${this.options.queue} cancelled by the broker`);
      return;
    }
    const tracked: Promise<void> = this.handle(message)
      .catch((err: unknown) => this.deps.logger.error({ queue: this.options.queue, err: errorText(err) }, 'bus consumer failed'))
      .finally(() => this.inflight.delete(tracked));
    this.inflight.add(tracked);
  }

  private async handle(message: ConsumeMessage): Promise<void> {
    const headers = message.properties.headers as Headers | undefined;
    const routingKey = originalRoutingKey(headers, message.fields.routingKey);
    const attempt = attemptOf(headers);
    const messageId = typeof message.properties.messageId === 'string' ? message.properties.messageId : undefined;
    const { outcome } = await traceDelivery(
      this.traceDestination,
      { queue: this.options.queue, routingKey, attempt, messageId, headers, base: this.options.traceBase },
      () => this.process(message, headers, routingKey, attempt),
    );
    this.count(outcome);
  }

  private async process(
    message: ConsumeMessage,
    headers: Headers | undefined,
    routingKey: string,
    attempt: number,
  ): Promise<DeliveryResult> {
    const ref: MessageRef = { queue: this.options.queue, routingKey };
    const decoded = decodeEnvelope(message.content);
    if (!decoded.ok) return { outcome: await this.park(message, ref, 'poison', 0, decoded.reason), error: decoded.reason };
    ref.messageId = decoded.envelope.id;
    ref.type = decoded.envelope.type;
    try {
      await this.options.handler(decoded.envelope, { attempt, routingKey, redelivered: message.fields.redelivered });
    } catch (err) {
      const outcome = failureOutcome(attempt, this.options);
      if (outcome.kind === 'park') return { outcome: await this.park(message, ref, 'max-attempts', attempt, errorText(err)), error: err };
      logRetry(this.deps.logger, ref, attempt, outcome.delayMs, err);
      // The headers go along unchanged but for the retry state, so the retried delivery continues the same trace.
      const moved = await this.moveTo(
        retryQueueName(this.options.queue, outcome.delayMs),
        message,
        retryHeaders(headers, routingKey, outcome.nextAttempt, err),
      );
      return { outcome: moved ? 'retry' : 'requeued', error: err };
    }
    this.settle(message, 'ack');
    return { outcome: 'ack' };
  }

  private async park(
    message: ConsumeMessage,
    ref: MessageRef,
    reason: DeadLetterReason,
    attempts: number,
    lastError: string,
  ): Promise<ConsumeOutcome> {
    const headers = deadLetterHeaders(message.properties.headers as Headers | undefined, ref.routingKey, attempts, reason, lastError);
    const moved = await this.moveTo(deadLetterQueueName(this.options.queue), message, headers);
    if (moved) logParked(this.deps.logger, ref, reason, attempts, lastError);
    return moved ? 'dead_lettered' : 'requeued';
  }

  private count(outcome: ConsumeOutcome): void {
    this.options.metrics?.consumed(this.options.queue, outcome);
  }

  /**
   * Copy to `target` (through the subscription's exchange, where it is bound by its name) with a
   * confirm, then ack the original; on failure requeue it so nothing is lost.
   */
  private async moveTo(target: string, message: ConsumeMessage, headers: Headers): Promise<boolean> {
    delete headers[SEND_ID_HEADER];
    const { properties } = message;
    try {
      const outcome = await this.sender.send(this.ownExchange, target, message.content, {
        persistent: true,
        headers,
        contentType: properties.contentType as string | undefined,
        messageId: properties.messageId as string | undefined,
        type: properties.type as string | undefined,
        timestamp: properties.timestamp as number | undefined,
      });
      if (outcome === 'unroutable') throw new Error(`queue ${target} does not exist`);
    } catch (err) {
      this.deps.logger.error({ queue: this.options.queue, target, err: errorText(err) }, 'bus could not move a message; requeued');
      this.settle(message, 'requeue');
      // Most likely the target queue was deleted under us: reconnecting re-declares it, where
      // requeueing alone would spin the message through the handler again and again.
      if (!this.closing) this.deps.onChannelLost(`could not move a message to ${target}`);
      return false;
    }
    this.settle(message, 'ack');
    return true;
  }

  private settle(message: ConsumeMessage, how: 'ack' | 'requeue'): void {
    try {
      if (how === 'ack') this.channel.ack(message);
      else this.channel.nack(message, false, true);
    } catch {
      // The channel is gone (connection lost): the broker redelivers the message on its own.
    }
  }
}
