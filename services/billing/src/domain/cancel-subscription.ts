import { conflict, notFound, type AppError } from '@acs/errors';
import type { SubscriptionView } from '../contracts.js';
import { endSubscription, findSubscription, lockUser, markCancelAtPeriodEnd } from '../data-access/subscriptions-repository.js';
import type { BillingDeps } from './deps.js';
import { recordSubscriptionChange } from './billing-audit.js';
import { recordEvent } from './events.js';
import { isLive, toView } from './subscription.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Cancels at period end: cancelAtPeriodEnd becomes true, the subscription (and the role) stays
 * active until currentPeriodEnd, subscription.canceled is emitted. A Lifetime subscription has no
 * period end, so it ends at once (status `canceled`). Canceling twice answers the same record
 * without a second event; someone else's or an unknown id is 404; an ended one is 409.
 */
export async function cancelSubscription(deps: BillingDeps, userId: number, id: string): Promise<SubscriptionView> {
  const noSuch = (): AppError => notFound('No such subscription', 'subscription_not_found');
  if (!UUID.test(id)) throw noSuch();
  let emitted = false;
  const view = await deps.db.transaction(async (tx) => {
    await lockUser(tx, userId);
    const existing = await findSubscription(tx, id);
    if (!existing || existing.userId !== userId) throw noSuch();
    const now = new Date();
    if (!isLive(existing, now)) throw conflict('The subscription has already ended', { code: 'subscription_ended' });
    if (existing.cancelAtPeriodEnd) return toView(existing, now);
    const changed =
      existing.currentPeriodEnd === null ? await endSubscription(tx, id, 'canceled', now) : await markCancelAtPeriodEnd(tx, id, now);
    await recordEvent(tx, 'canceled', changed, now);
    await recordSubscriptionChange(tx, deps.actor, 'subscription.canceled', existing, changed, now);
    emitted = true;
    deps.logger.info(
      { audit: 'subscription.canceled', userId, subscriptionId: id, endsAt: changed.currentPeriodEnd?.toISOString() },
      'subscription canceled',
    );
    return toView(changed, now);
  });
  if (emitted) deps.onOutboxWrite();
  return view;
}
