import type { Logger } from '@acs/logger';
import type { Subscription } from './types.js';

/**
 * A subscription a service starts without waiting for it (the broker may be down at start, and the bus keeps
 * trying), held for the service's close:
 * - a subscription that is up when the close comes is closed (its handlers in flight finish and ack first);
 * - one still being made is not waited for: while the broker is down it would never complete, and the close
 *   would wait there until runStandalone left the service behind (6 s), its outbox relays and database pool
 *   never closed. It closes itself if it completes once the close began, and fails quietly when the bus closes.
 */
export class LateSubscription {
  private subscription: Subscription | null = null;
  private closing = false;
  /** Settles once the subscribe does; never rejects (a failure is logged, unless the close had begun). */
  readonly ready: Promise<void>;

  constructor(subscribing: Promise<Subscription>, logger: Logger, failure = 'could not subscribe to a queue; its events are not consumed') {
    this.ready = subscribing.then(
      async (subscription) => {
        if (this.closing) await subscription.close();
        else this.subscription = subscription;
      },
      (err: unknown) => {
        if (!this.closing) logger.error({ err }, failure);
      },
    );
  }

  /** The service's close begins (before its close stack runs): a subscription completing from now on closes itself. */
  beginClose(): void {
    this.closing = true;
  }

  /** The close-stack step: no subscription is kept from now on, and the one that is up (if any) closes. */
  async close(): Promise<void> {
    this.closing = true;
    await this.subscription?.close();
  }
}

/** A LateSubscription as a close-stack step, for a service that needs nothing else of it. */
export function consumeLater(subscribing: Promise<Subscription>, logger: Logger): () => Promise<void> {
  const late = new LateSubscription(subscribing, logger);
  return () => late.close();
}
