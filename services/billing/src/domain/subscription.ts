import type { SubscriptionView } from '../contracts.js';

export type StoredStatus = 'active' | 'replaced' | 'canceled' | 'expired';

export interface Subscription {
  id: string;
  userId: number;
  planId: string;
  planType: number;
  status: StoredStatus;
  currentPeriodStart: Date;
  /** null for Lifetime. */
  currentPeriodEnd: Date | null;
  cancelAtPeriodEnd: boolean;
  canceledAt: Date | null;
  endedAt: Date | null;
  createdAt: Date;
}

/** Still granting access at `now`: stored active and the period not over. */
export const isLive = (subscription: Subscription, now: Date): boolean =>
  subscription.status === 'active' && (subscription.currentPeriodEnd === null || subscription.currentPeriodEnd > now);

/** Expiry is computed, not written: no scheduler has to run for a period to end. */
function viewStatus(subscription: Subscription, now: Date): SubscriptionView['status'] {
  if (subscription.status === 'active') return isLive(subscription, now) ? 'active' : 'expired';
  return subscription.status;
}

export function toView(subscription: Subscription, now = new Date()): SubscriptionView {
  return {
    id: subscription.id,
    planId: subscription.planId,
    planType: subscription.planType,
    status: viewStatus(subscription, now),
    currentPeriodStart: subscription.currentPeriodStart.toISOString(),
    currentPeriodEnd: subscription.currentPeriodEnd?.toISOString() ?? null,
    cancelAtPeriodEnd: subscription.cancelAtPeriodEnd,
    createdAt: subscription.createdAt.toISOString(),
    endedAt: subscription.endedAt?.toISOString() ?? null,
  };
}
