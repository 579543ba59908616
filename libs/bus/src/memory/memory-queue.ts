import type { Headers } from '../headers.js';
import { topicMatches } from '../topic-match.js';
import type { DeadLetter } from '../types.js';

/** A message at rest in a queue: the JSON text as sent, like the bytes a broker would hold. */
export interface StoredMessage {
  content: string;
  routingKey: string;
  attempt: number;
  /** The envelope id as the publisher gave it (a raw publish has none). */
  messageId?: string;
  /** Travel with the message as AMQP headers do: the publisher's trace context (traceparent, tracestate). */
  headers?: Headers;
}

export interface QueueListener {
  /** Called when the queue has something new; listeners pull with `take()`. */
  wake(): void;
}

/**
 * The in-process stand-in for a durable queue and its `.dlq`. It outlives its subscriptions, as a
 * broker queue does, so messages published while nobody consumes wait for the next subscriber.
 */
export class MemoryQueue {
  readonly bindings = new Set<string>();
  readonly deadLetters: DeadLetter[] = [];
  private readonly messages: StoredMessage[] = [];
  private readonly listeners = new Set<QueueListener>();

  constructor(readonly name: string) {}

  routes(routingKey: string): boolean {
    for (const pattern of this.bindings) if (topicMatches(pattern, routingKey)) return true;
    return false;
  }

  enqueue(message: StoredMessage): void {
    this.messages.push(message);
    for (const listener of this.listeners) listener.wake();
  }

  take(): StoredMessage | undefined {
    return this.messages.shift();
  }

  get depth(): number {
    return this.messages.length;
  }

  attach(listener: QueueListener): void {
    this.listeners.add(listener);
  }

  detach(listener: QueueListener): void {
    this.listeners.delete(listener);
  }
}
