import type { ResolvedSubscribeOptions } from '../subscribe-options.js';
import type { AmqpConsumer } from './amqp-consumer.js';

/** What a record needs to know of the connection it runs on: whether it is still open. */
export interface SessionRef {
  alive: boolean;
}

/**
 * A subscription as the bus remembers it across connections: its options, and the consumer on
 * the connection it currently runs on. Re-established on every reconnect until closed.
 */
export class SubscriptionRecord {
  consumer: AmqpConsumer | null = null;
  session: SessionRef | null = null;
  closed = false;
  readonly established: Promise<void>;
  private settled = false;
  private attachedOnce = false;
  private resolveEstablished!: () => void;
  private rejectEstablished!: (err: Error) => void;

  constructor(readonly options: ResolvedSubscribeOptions) {
    this.established = new Promise<void>((resolve, reject) => {
      this.resolveEstablished = resolve;
      this.rejectEstablished = reject;
    });
    // Nobody may be waiting when the bus closes first; that rejection is expected, not unhandled.
    this.established.catch(() => undefined);
  }

  /** Whether it ever ran: a later failure to re-establish is then the broker's state, not bad options. */
  get everEstablished(): boolean {
    return this.attachedOnce;
  }

  attach(session: SessionRef, consumer: AmqpConsumer): void {
    this.session = session;
    this.consumer = consumer;
    this.attachedOnce = true;
    if (!this.settled) {
      this.settled = true;
      this.resolveEstablished();
    }
  }

  fail(err: Error): void {
    if (this.settled) return;
    this.settled = true;
    this.rejectEstablished(err);
  }

  async close(reason: Error): Promise<void> {
    this.closed = true;
    this.fail(reason);
    const consumer = this.consumer;
    this.consumer = null;
    this.session = null;
    await consumer?.close();
  }
}
