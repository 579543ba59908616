import type { Logger } from '@acs/logger';
import { decodeEnvelope } from '../envelope.js';
import { failureOutcome, logParked, logRetry, type MessageRef } from '../failure-policy.js';
import { errorText } from '../headers.js';
import type { ResolvedSubscribeOptions } from '../subscribe-options.js';
import type { DeadLetterReason } from '../types.js';
import type { MemoryQueue, QueueListener, StoredMessage } from './memory-queue.js';

export interface ConsumerDeps {
  logger: Logger;
  /** Owned by the bus, not the consumer: a pending retry outlives its subscription, like a retry queue. */
  scheduleRetry(queue: MemoryQueue, message: StoredMessage, delayMs: number): void;
}

/** One subscription on a MemoryQueue: at most `prefetch` handlers at once, each message removed only once handled. */
export class MemoryConsumer implements QueueListener {
  private readonly inflight = new Set<Promise<void>>();
  private pending: NodeJS.Immediate | null = null;
  private stopped = false;

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
      this.pump();
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
    const ref: MessageRef = { queue: this.queue.name, routingKey: message.routingKey };
    const decoded = decodeEnvelope(message.content);
    if (!decoded.ok) {
      this.park(message, ref, 'poison', 0, decoded.reason);
      return;
    }
    ref.messageId = decoded.envelope.id;
    ref.type = decoded.envelope.type;
    try {
      await this.options.handler(decoded.envelope, { attempt: message.attempt, routingKey: message.routingKey, redelivered: false });
    } catch (err) {
      const outcome = failureOutcome(message.attempt, this.options);
      if (outcome.kind === 'park') {
        this.park(message, ref, 'max-attempts', message.attempt, errorText(err));
        return;
      }
      logRetry(this.deps.logger, ref, message.attempt, outcome.delayMs, err);
      this.deps.scheduleRetry(this.queue, { ...message, attempt: outcome.nextAttempt }, outcome.delayMs);
      this.options.metrics?.consumed(this.queue.name, 'retry');
      return;
    }
    this.options.metrics?.consumed(this.queue.name, 'ack');
  }

  private park(message: StoredMessage, ref: MessageRef, reason: DeadLetterReason, attempts: number, lastError: string): void {
    this.queue.deadLetters.push({
      queue: this.queue.name,
      routingKey: message.routingKey,
      content: message.content,
      reason,
      attempts,
      lastError,
      deadLetteredAt: new Date().toISOString(),
    });
    logParked(this.deps.logger, ref, reason, attempts, lastError);
    this.options.metrics?.consumed(this.queue.name, 'dead_lettered');
  }
}
