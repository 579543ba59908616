import type { Logger } from '@acs/logger';
import type { Subscription } from './types.js';

/**
 * A subscription a service starts without waiting for it (the broker may be down at start; the
 * bus keeps trying), and the close for its close stack: handlers in flight finish, and a
 * subscription that completes after the close closes itself.
 */
export function consumeLater(subscribing: Promise<Subscription>, logger: Logger): () => Promise<void> {
  let closed = false;
  const subscription = subscribing.then(
    async (ready) => {
      if (closed) await ready.close();
      return closed ? null : ready;
    },
    (err: unknown) => {
      if (!closed) logger.error({ err }, 'could not subscribe to a queue; its events are not consumed');
      return null;
    },
  );
  return async () => {
    closed = true;
    await (await subscription)?.close();
  };
}
