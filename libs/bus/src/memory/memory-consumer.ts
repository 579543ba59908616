import { AsyncResource } from 'node:async_hooks';
import type { Logger } from '@acs/logger';
import { traceDelivery, type DeliveryResult, type TraceDestination } from '../bus-tracing.js';
import { decodeEnvelope } from '../envelope.js';
import { failureOutcome, logParked, logRetry, type MessageRef } from '../failure-policy.js';
import { errorText, TRACEPARENT } from '../headers.js';
import type { ResolvedSubscribeOptions } from '../subscribe-options.js';
import type { ConsumeOutcome, DeadLetterReason } from '../types.js';
import type { MemoryQueue, QueueListener, StoredMessage } from './memory-queue.js';

export interface ConsumerDeps {
  logger: Logger;
  /** Owned by the bus, not the consumer: a pending retry outlives its subscription, like a retry queue. */
  scheduleRetry(queue: MemoryQueue, message: StoredMessage, delayMs: number): void;
  traceDestination: TraceDestination;
}

/** One subscription on a MemoryQueue: at most `prefetch` handlers at once, each message removed only once handled. */
export class MemoryConsumer implements QueueListener {
  private readonly inflight = new Set<Promise<void>>();
  private pending: NodeJS.Immediate | null = null;
  private stopped = false;
  /**
   * Deliveries run in the subscriber's async context, as a broker's would, not in that of whoever
   * woke the queue (a publisher, a retry timer): otherwise anything kept in AsyncLocalStorage
   * (the active trace, a logger's bindings) would leak from the publisher into the handler.
   */
  private readonly pumpInSubscriberContext = AsyncResource.bind(() => this.pump());

  constructor(
    private readonly queue: MemoryQueue,
    private readonly options: ResolvedSubscribeOptions,
    private readonly deps: ConsumerDeps,
  ) {
    queue.attach(this);
    this.wake();
  }

  /** Deliveries always start on a later tick, so publish never runs a handler inside the caller's stack. */
  wake(): void {
    if (this.stopped || this.pending) return;
    this.pending = setImmediate(() => {
      this.pending = null;
      this.pumpInSubscriberContext();
    });
  }

  async close(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.queue.detach(this);
    if (this.pending) clearImmediate(this.pending);
    this.pending = null;
    await Promise.allSettled([...this.inflight]);
  }

  private pump(): void {
    while (!this.stopped && this.inflight.size < this.options.prefetch) {
      const message = this.queue.take();
      if (!message) return;
      const tracked: Promise<void> = this.handle(message)
        .catch((err: unknown) => this.deps.logger.error({ queue: this.queue.name, err: errorText(err) }, 'bus consumer failed'))
        .finally(() => {
          this.inflight.delete(tracked);
          this.wake();
        });
      this.inflight.add(tracked);
    }
  }

  private async handle(message: StoredMessage): Promise<void> {
    const { outcome } = await traceDelivery(
      this.deps.traceDestination,
      {
        queue: this.queue.name,
        routingKey: message.routingKey,
        attempt: message.attempt,
        messageId: message.messageId,
        headers: message.headers,
        base: this.options.traceBase,
      },
      () => this.process(message),
    );
    this.options.metrics?.consumed(this.queue.name, outcome);
  }

  private async process(message: StoredMessage): Promise<DeliveryResult> {
    const ref: MessageRef = { queue: this.queue.name, routingKey: message.routingKey };
    const decoded = decodeEnvelope(message.content);
    if (!decoded.ok) return { outcome: this.park(message, ref, 'poison', 0, decoded.reason), error: decoded.reason };
    ref.messageId = decoded.envelope.id;
    ref.type = decoded.envelope.type;
    try {
      await this.options.handler(decoded.envelope, { attempt: message.attempt, routingKey: message.routingKey, redelivered: false });
    } catch (err) {
      const outcome = failureOutcome(message.attempt, this.options);
      if (outcome.kind === 'park') return { outcome: this.park(message, ref, 'max-attempts', message.attempt, errorText(err)), error: err };
      logRetry(this.deps.logger, ref, message.attempt, outcome.delayMs, err);
      // Headers travel with the retry, so the next attempt continues the same trace.
      this.deps.scheduleRetry(this.queue, { ...message, attempt: outcome.nextAttempt }, outcome.delayMs);
      return { outcome: 'retry', error: err };
    }
    return { outcome: 'ack' };
  }

  private park(message: StoredMessage, ref: MessageRef, reason: DeadLetterReason, attempts: number, lastError: string): ConsumeOutcome {
    const traceparent = message.headers?.[TRACEPARENT];
    this.queue.deadLetters.push({
      queue: this.queue.name,
      routingKey: message.routingKey,
      content: message.content,
      reason,
      attempts,
      lastError,
      deadLetteredAt: new Date().toISOString(),
      ...(typeof traceparent === 'string' ? { traceparent } : {}),
    });
    logParked(this.deps.logger, ref, reason, attempts, lastError);
    return 'dead_lettered';
  }
}
