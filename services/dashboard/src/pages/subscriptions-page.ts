import type { SubscriptionPlanView, SubscriptionView } from '@acs/contracts';
import { html, type SafeHtml } from './html.js';
import { formatPrice, formatTime, planTypeName } from './labels.js';
import { csrfField, layout, type Chrome } from './layout.js';

export interface SubscriptionsPageData {
  plans: SubscriptionPlanView[];
  subscriptions: SubscriptionView[];
  /** One fresh Idempotency-Key per plan form: sending the same form twice subscribes once. */
  idempotencyKeys: Record<string, string>;
}

const isRunning = (s: SubscriptionView): boolean => s.status === 'active';

function planRow(chrome: Chrome, plan: SubscriptionPlanView, current: SubscriptionView | undefined, idempotencyKey: string | undefined): SafeHtml {
  let action: SafeHtml;
  if (plan.planType === 0) action = html`<span class="hint">no subscription needed</span>`;
  else if (current && current.planId === plan.id && !current.cancelAtPeriodEnd) action = html`<strong>your current plan</strong>`;
  else {
    action = html`<form method="post" action="/subscriptions">${csrfField(chrome.csrfToken)}<input type="hidden" name="planId" value="${plan.id}"><input type="hidden" name="idempotencyKey" value="${idempotencyKey ?? ''}"><button type="submit">${current ? 'Switch to' : 'Subscribe to'} ${plan.name}</button></form>`;
  }
  return html`<tr><td>${plan.name}</td><td>${formatPrice(plan.price, plan.currency, plan.billingInterval)}</td><td>${action}</td></tr>`;
}

function subscriptionRow(chrome: Chrome, subscription: SubscriptionView, plans: SubscriptionPlanView[]): SafeHtml {
  const plan = plans.find((p) => p.id === subscription.planId);
  const ends = subscription.currentPeriodEnd ? formatTime(subscription.currentPeriodEnd) : 'never (lifetime)';
  let state: SafeHtml = html`${subscription.status}`;
  if (isRunning(subscription) && subscription.cancelAtPeriodEnd) state = html`active, ends at period end`;
  const cancel =
    isRunning(subscription) && !subscription.cancelAtPeriodEnd
      ? html`<form method="post" action="/subscriptions/${encodeURIComponent(subscription.id)}/cancel">${csrfField(chrome.csrfToken)}<button type="submit" class="danger">Cancel</button></form>`
      : '';
  return html`<tr><td>${plan?.name ?? planTypeName(subscription.planType)}</td><td>${state}</td><td>${formatTime(subscription.currentPeriodStart)}</td><td>${ends}</td><td>${cancel}</td></tr>`;
}

export function subscriptionsPage(chrome: Chrome, data: SubscriptionsPageData): SafeHtml {
  const current = data.subscriptions.find(isRunning);
  const mine =
    data.subscriptions.length === 0
      ? html`<p>You have no subscriptions.</p>`
      : html`<table><thead><tr><th>Plan</th><th>Status</th><th>Started</th><th>Period ends</th><th></th></tr></thead>
<tbody>${data.subscriptions.map((s) => subscriptionRow(chrome, s, data.plans))}</tbody></table>
<p class="hint">Cancelling keeps your plan until the end of the period already paid for.</p>`;
  return layout(
    'Subscriptions',
    chrome,
    html`<section><h2>Plans</h2>
<table><thead><tr><th>Plan</th><th>Price</th><th></th></tr></thead>
<tbody>${data.plans.map((plan) => planRow(chrome, plan, current, data.idempotencyKeys[plan.id]))}</tbody></table>
<p class="hint">There is no payment step in this system: a subscription is active at once. Switching plans ends the current one now, without proration.</p>
</section>
<section><h2>Your subscriptions</h2>${mine}</section>`,
  );
}
