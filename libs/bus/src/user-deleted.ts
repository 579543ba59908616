import { USER_EVENTS_BINDING, deletedUserIdOf } from '@acs/contracts';
import type { Bus, Subscription } from './types.js';

/**
 * How a service hears of a deleted account (issue 32 item 5): its durable queue for identity's user
 * events (USER_EVENTS_QUEUE, bound to user.*) calls `erase` with the user id of each valid
 * user.deleted; the family's other events are acknowledged untouched, and a malformed user.deleted
 * throws (retried, then dead-lettered). `erase` must be idempotent: a redelivery calls it again.
 */
export function consumeUserDeleted(bus: Bus, queue: string, erase: (userId: number) => Promise<unknown>): Promise<Subscription> {
  return bus.subscribe({
    queue,
    bindings: [USER_EVENTS_BINDING],
    handler: async (message) => {
      const userId = deletedUserIdOf(message);
      if (userId !== null) await erase(userId);
    },
  });
}
