import type { ChannelModel } from 'amqplib';
import type { Logger } from '@acs/logger';
import { errorText } from '../headers.js';
import { AmqpConsumer } from './amqp-consumer.js';
import { ConfirmedSender } from './confirmed-sender.js';
import type { SubscriptionRecord, SessionRef } from './subscription-record.js';
import { assertExchange } from './topology.js';

/** One connection to the broker with its publisher's confirm channel. */
export interface Session extends SessionRef {
  model: ChannelModel;
  publisher: ConfirmedSender;
}

export interface BusSessionsOptions {
  exchange: string;
  logger: Logger;
  confirmTimeoutMs: number;
}

const nextTick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const asError = (err: unknown): Error => (err instanceof Error ? err : new Error(String(err)));

/**
 * The bus's side of the connection: the open subscriptions (kept across reconnects) and the
 * session they run on now. `setup` is what every new connection runs (amqplib's recovery calls it):
 * declare the exchange, open the publisher, re-establish every subscription, then report ready.
 * A subscription refused for its own options fails its subscribe() and is dropped; a lost
 * connection is left to the next setup.
 */
export class BusSessions {
  readonly records = new Set<SubscriptionRecord>();
  current: Session | null = null;
  closed = false;

  constructor(private readonly options: BusSessionsOptions) {}

  /** Runs on every (re)connection; rejects when the connection is lost mid-way, so recovery tries again. */
  async setup(model: ChannelModel): Promise<void> {
    const { logger, exchange, confirmTimeoutMs } = this.options;
    model.on('error', (err: Error) => logger.warn({ err: errorText(err) }, 'bus connection error'));
    const channel = await model.createConfirmChannel();
    const session: Session = { model, alive: true, publisher: new ConfirmedSender(channel, confirmTimeoutMs) };
    model.on('close', () => this.forget(session));
    channel.on('error', (err: Error) => logger.warn({ err: errorText(err) }, 'bus publisher channel error'));
    channel.on('close', () => this.onChannelLost(session, 'publisher channel closed'));
    await assertExchange(channel, exchange);
    // A Set iterates entries added while we await, so a subscribe() arriving mid-setup is included.
    for (const record of this.records) {
      if (record.closed || this.closed) continue;
      try {
        await this.establish(session, record);
      } catch (err) {
        if (!(await this.isOwnFault(session)) || record.everEstablished) throw err;
        this.records.delete(record);
        record.fail(asError(err));
      }
    }
    if (this.closed) return;
    this.current = session;
    logger.info({ exchange, subscriptions: this.records.size }, 'bus connected');
  }

  /** A new subscription: on the current session at once if there is one, else at the next setup. */
  add(record: SubscriptionRecord): void {
    this.records.add(record);
    if (this.current) void this.subscribeOn(this.current, record);
  }

  /** Stops every subscription; the connection is the caller's to close. */
  async close(reason: () => Error): Promise<void> {
    this.closed = true;
    this.current = null;
    const open = [...this.records];
    this.records.clear();
    await Promise.allSettled(open.map((record) => record.close(reason())));
  }

  private forget(session: Session): void {
    session.alive = false;
    if (this.current === session) this.current = null;
  }

  /** A channel died under a live connection: rebuild everything through one recovery path. */
  private onChannelLost(session: Session, reason: string): void {
    // Defer: when the whole connection drops, channels close first and the connection's own
    // close event follows in the same tick; only a channel lost on a live connection needs this.
    setImmediate(() => {
      if (this.closed || !session.alive) return;
      this.options.logger.warn({ reason }, 'bus channel lost; reconnecting to restore the topology');
      this.forget(session);
      session.model.close().catch(() => undefined);
    });
  }

  private async establish(session: Session, record: SubscriptionRecord): Promise<void> {
    const { logger, exchange, confirmTimeoutMs } = this.options;
    const consumer = await AmqpConsumer.start(session.model, record.options, {
      logger,
      exchange,
      confirmTimeoutMs,
      onChannelLost: (reason) => this.onChannelLost(session, reason),
    });
    if (record.closed || this.closed) {
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
  private async isOwnFault(session: Session): Promise<boolean> {
    await nextTick();
    return session.alive && !this.closed;
  }

  private async subscribeOn(session: Session, record: SubscriptionRecord): Promise<void> {
    try {
      await this.establish(session, record);
    } catch (err) {
      // A lost connection is not the caller's problem: the next setup establishes the record.
      if (!(await this.isOwnFault(session))) return;
      this.records.delete(record);
      record.fail(asError(err));
    }
  }
}
