import type { SubscriptionView } from '../contracts.js';
import { listSubscriptions } from '../data-access/subscriptions-repository.js';
import type { BillingDeps } from './deps.js';
import { toView } from './subscription.js';

export async function listUserSubscriptions(deps: BillingDeps, userId: number): Promise<SubscriptionView[]> {
  const now = new Date();
  return (await listSubscriptions(deps.db, userId)).map((subscription) => toView(subscription, now));
}
