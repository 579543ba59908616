import type { Subscription } from '@acs/bus';
import type { Logger } from '@acs/logger';

/**
 * The subscription-events consumer as the service holds it: start does not wait for it (logins must
 * not depend on the broker being up), and a stop may come before it is ready. Handlers in flight
 * finish (and ack) before the database goes away; a subscription that completes after the stop
 * began closes itself.
 */
export class LateSubscription {
  private subscription: Subscription | null = null;
  private stopping = false;

  constructor(private readonly logger: Logger) {}

  /** Resolves once `subscribing` settles; never rejects (a failure is logged unless the stop began). */
  follow(subscribing: Promise<Subscription>): Promise<void> {
    return subscribing.then(
      async (subscription) => {
        if (this.stopping) await subscription.close();
        else this.subscription = subscription;
      },
      (err: unknown) => {
        if (!this.stopping) this.logger.error({ err }, 'could not subscribe to subscription events; roles will not follow billing');
      },
    );
  }

  /** The service's close begins: a subscription that completes from now on closes itself. */
  beginStop(): void {
    this.stopping = true;
  }

  /** The close-stack step: no new subscription is kept, and the current one (if any) closes. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.subscription?.close();
  }
}
