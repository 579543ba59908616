import type { Logger } from '@acs/logger';
import type { TraceDestination } from '../bus-tracing.js';
import { BusUnavailableError } from '../errors.js';
import type { ResolvedSubscribeOptions } from '../subscribe-options.js';
import type { DeadLetter, Subscription } from '../types.js';
import { MemoryConsumer } from './memory-consumer.js';
import { MemoryQueue, type StoredMessage } from './memory-queue.js';

/**
 * What the in-process bus holds between calls, as a broker would: its queues, the consumers on
 * them and the retries waiting to go back in. The bus (memory-bus.ts) validates and traces, then
 * hands messages and subscriptions to this.
 */
export class MemoryBroker {
  private readonly queues = new Map<string, MemoryQueue>();
  private readonly consumers = new Set<MemoryConsumer>();
  private readonly retryTimers = new Set<NodeJS.Timeout>();
  private closed = false;

  constructor(
    private readonly logger: Logger,
    private readonly delayScale: number,
    private readonly traceDestination: TraceDestination,
  ) {}

  get open(): boolean {
    return !this.closed;
  }

  assertOpen(): void {
    if (this.closed) throw new BusUnavailableError('the bus is closed');
  }

  route(message: StoredMessage): void {
    for (const queue of this.queues.values()) {
      if (queue.routes(message.routingKey)) queue.enqueue({ ...message });
    }
  }

  /** An arrow property: the consumers call it through their deps object. */
  private readonly scheduleRetry = (queue: MemoryQueue, message: StoredMessage, delayMs: number): void => {
    if (this.closed) return;
    const timer = setTimeout(() => {
      this.retryTimers.delete(timer);
      queue.enqueue(message);
    }, delayMs * this.delayScale);
    this.retryTimers.add(timer);
  };

  attach(resolved: ResolvedSubscribeOptions): Subscription {
    let queue = this.queues.get(resolved.queue);
    if (!queue) {
      queue = new MemoryQueue(resolved.queue);
      this.queues.set(resolved.queue, queue);
    }
    // Bindings add up, as repeated queue.bind calls do on a broker.
    for (const pattern of resolved.bindings) queue.bindings.add(pattern);
    const consumer = new MemoryConsumer(queue, resolved, {
      logger: this.logger,
      scheduleRetry: this.scheduleRetry,
      traceDestination: this.traceDestination,
    });
    this.consumers.add(consumer);
    return {
      close: async (): Promise<void> => {
        this.consumers.delete(consumer);
        await consumer.close();
      },
    };
  }

  deadLetters(queue: string): DeadLetter[] {
    return [...(this.queues.get(queue)?.deadLetters ?? [])];
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.consumers].map((consumer) => consumer.close()));
    this.consumers.clear();
    for (const timer of this.retryTimers) clearTimeout(timer);
    this.retryTimers.clear();
  }
}
