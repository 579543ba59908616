import { eraseUserFromAudit, systemActor } from '@acs/audit';
import { consumeUserDeleted, type Bus, type Subscription } from '@acs/bus';
import { endSubscription, listSubscriptions, lockUser } from '../data-access/subscriptions-repository.js';
import { BILLING_AUDIT, recordSubscriptionChange } from '../domain/billing-audit.js';
import type { BillingDeps } from '../domain/deps.js';
import { recordEvent } from '../domain/events.js';
import { isLive } from '../domain/subscription.js';

const CONSUMER_ACTOR = systemActor('billing user-deleted consumer');

/**
 * A deleted account (issue 32 item 5): every live subscription of the user ends now (status
 * canceled; the account that would use the rest of the period is gone), each with its
 * subscription.canceled event and audit entry, and the user's personal data leaves billing's trail;
 * one transaction under the user's lock. A redelivery finds nothing live and changes nothing.
 */
async function cancelSubscriptionsOfDeletedUser(deps: BillingDeps, userId: number): Promise<number> {
  const canceled = await deps.db.transaction(async (tx) => {
    await lockUser(tx, userId);
    const now = new Date();
    let count = 0;
    for (const subscription of await listSubscriptions(tx, userId)) {
      if (!isLive(subscription, now)) continue;
      const changed = await endSubscription(tx, subscription.id, 'canceled', now);
      await recordEvent(tx, 'canceled', changed, now);
      await recordSubscriptionChange(tx, CONSUMER_ACTOR, 'subscription.canceled', subscription, changed, now);
      count += 1;
    }
    await eraseUserFromAudit(tx, BILLING_AUDIT, userId, CONSUMER_ACTOR);
    return count;
  });
  deps.onOutboxWrite();
  deps.logger.info({ audit: 'user.subscriptions_canceled', userId, canceled }, 'subscriptions of a deleted account canceled');
  return canceled;
}

/** `queue`: billing's durable queue for identity's user events (USER_EVENTS_QUEUE, billing.user-events), bound to user.*. */
export function startUserDeletedConsumer(deps: BillingDeps, bus: Bus, queue: string): Promise<Subscription> {
  return consumeUserDeleted(bus, queue, (userId) => cancelSubscriptionsOfDeletedUser(deps, userId));
}
