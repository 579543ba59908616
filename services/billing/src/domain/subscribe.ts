import { createHash } from 'node:crypto';
import type { Queryable } from '@acs/db';
import { AppError, badRequest, conflict, notFound, unprocessable } from '@acs/errors';
import type { SubscriptionView } from '../contracts.js';
import { findAnswer, saveAnswer } from '../data-access/idempotency-repository.js';
import { findPlan } from '../data-access/plans-repository.js';
import { endSubscription, findActiveSubscription, insertSubscription, lockUser } from '../data-access/subscriptions-repository.js';
import type { BillingDeps } from './deps.js';
import { recordSubscriptionChange } from './billing-audit.js';
import { recordEvent } from './events.js';
import { PLAN_TYPE_FREE, type Plan } from './plan.js';
import { isLive, type Subscription, toView } from './subscription.js';

export interface Answer {
  status: number;
  body: SubscriptionView;
  /** True when this is the stored answer to an earlier request with the same Idempotency-Key. */
  replayed: boolean;
}

/** The end of a period that starts at `start`, or null when it never ends (Lifetime). */
function periodEnd(deps: BillingDeps, plan: Plan, start: Date): Date | null {
  switch (plan.billingInterval) {
    case 'month':
      return new Date(start.getTime() + deps.settings.periodSeconds.month * 1000);
    case 'year':
      return new Date(start.getTime() + deps.settings.periodSeconds.year * 1000);
    case 'lifetime':
      return null;
    case 'none':
      throw badRequest('The Free plan needs no subscription', undefined, 'free_plan');
  }
}

/** Same key and same body replay; the body is compared after parsing, so whitespace and key order do not matter. */
const requestHash = (body: { planId: string }): string =>
  createHash('sha256')
    .update(JSON.stringify({ planId: body.planId }))
    .digest('base64url');

function replayOrRefuse(stored: { requestHash: string; status: number; body: unknown }, hash: string): Answer {
  if (stored.requestHash !== hash)
    throw unprocessable('This Idempotency-Key was already used with a different request body', undefined, 'idempotency_key_reused');
  return { status: stored.status, body: stored.body as SubscriptionView, replayed: true };
}

/** What the locked part of a subscription needs: the request, the approved plan and the payment's reference. */
interface ApprovedSubscription {
  userId: number;
  plan: Plan;
  idempotencyKey: string | null;
  hash: string;
  paymentReference: string | null;
}

/**
 * Ends the user's live subscription (status `replaced`) and any stale row still stored as active,
 * and returns the live one that was replaced, or null. 409 when the live one is this very plan and
 * not being canceled.
 */
async function endCurrentSubscription(tx: Queryable, userId: number, plan: Plan, now: Date): Promise<Subscription | null> {
  let current = await findActiveSubscription(tx, userId);
  if (current && !isLive(current, now)) current = null; // its period is over: nothing to replace
  if (current && current.planId === plan.id && !current.cancelAtPeriodEnd) {
    throw conflict(`You already have an active ${plan.name} subscription`, { code: 'already_subscribed' });
  }
  if (current) await endSubscription(tx, current.id, 'replaced', now);
  // An expired row still stored as active must leave the one-active-per-user index.
  const stale = await findActiveSubscription(tx, userId);
  if (stale) await endSubscription(tx, stale.id, 'expired', stale.currentPeriodEnd ?? now);
  return current;
}

/** The transaction of a subscription: under the user's row lock, replay or replace, insert, record and store the answer. */
async function subscribeLocked(deps: BillingDeps, tx: Queryable, request: ApprovedSubscription): Promise<Answer> {
  const { userId, plan, idempotencyKey, hash } = request;
  await lockUser(tx, userId);
  if (idempotencyKey) {
    // A concurrent request with the same key may have committed while we were not holding the lock.
    const stored = await findAnswer(tx, userId, idempotencyKey, deps.settings.idempotencyKeyTtlSeconds);
    if (stored) return replayOrRefuse(stored, hash);
  }
  const now = new Date();
  const current = await endCurrentSubscription(tx, userId, plan, now);
  const created = await insertSubscription(tx, {
    userId,
    planId: plan.id,
    planType: plan.planType,
    currentPeriodStart: now,
    currentPeriodEnd: periodEnd(deps, plan, now),
  });
  await recordEvent(tx, current ? 'changed' : 'activated', created, now);
  await recordSubscriptionChange(tx, deps.actor, current ? 'subscription.changed' : 'subscription.activated', current, created, now);
  const fresh: Answer = { status: 201, body: toView(created, now), replayed: false };
  if (idempotencyKey) await saveAnswer(tx, userId, idempotencyKey, { requestHash: hash, status: fresh.status, body: fresh.body });
  deps.logger.info(
    {
      audit: current ? 'subscription.changed' : 'subscription.activated',
      userId,
      subscriptionId: created.id,
      planId: plan.id,
      replaced: current?.id,
      paymentReference: request.paymentReference,
    },
    current ? 'subscription replaced' : 'subscription activated',
  );
  return fresh;
}

/**
 * Subscribes the user to a paid plan. Rules: the Free plan is refused (400), an unknown plan is
 * 404; the same plan while it is active and not being canceled is 409; another plan while one is
 * active replaces it: the old one ends now (status `replaced`), the new period starts now, no
 * proration, and subscription.changed is emitted (subscription.activated otherwise).
 */
export async function subscribe(
  deps: BillingDeps,
  userId: number,
  body: { planId: string },
  idempotencyKey: string | null,
): Promise<Answer> {
  const hash = requestHash(body);
  if (idempotencyKey) {
    // Before the payment seam: a retried request must not be charged twice.
    const stored = await findAnswer(deps.db, userId, idempotencyKey, deps.settings.idempotencyKeyTtlSeconds);
    if (stored) return replayOrRefuse(stored, hash);
  }
  const plan = await findPlan(deps.db, body.planId);
  if (!plan) throw notFound(`No subscription plan ${body.planId}`, 'plan_not_found');
  if (plan.planType === PLAN_TYPE_FREE) throw badRequest('The Free plan needs no subscription', undefined, 'free_plan');

  const decision = await deps.payments.approve({ userId, plan, idempotencyKey });
  if (!decision.approved) throw new AppError('bad_request', 'Payment declined', decision.reason, { code: 'payment_declined' });

  const request: ApprovedSubscription = { userId, plan, idempotencyKey, hash, paymentReference: decision.reference };
  const answer = await deps.db.transaction((tx) => subscribeLocked(deps, tx, request));
  if (!answer.replayed) deps.onOutboxWrite();
  return answer;
}
