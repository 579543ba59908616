import type { SubscriptionPlanView, SubscriptionView } from '@acs/contracts';
import { html, type SafeHtml } from './html.js';
import { formatPrice, formatTime, planTypeName } from './labels.js';
import { csrfField, layout, type Chrome } from './layout.js';
import { confirmPage } from './form-page.js';

export interface SubscriptionsPageData {
  plans: SubscriptionPlanView[];
  subscriptions: SubscriptionView[];
}

const isRunning = (s: SubscriptionView): boolean => s.status === 'active';
/** The subscription that gives the plan now, canceled or not. */
export const currentSubscription = (subscriptions: SubscriptionView[]): SubscriptionView | undefined => subscriptions.find(isRunning);

const planName = (subscription: SubscriptionView, plans: SubscriptionPlanView[]): string =>
  plans.find((p) => p.id === subscription.planId)?.name ?? planTypeName(subscription.planType);

const periodEnd = (subscription: SubscriptionView): string =>
  subscription.currentPeriodEnd ? formatTime(subscription.currentPeriodEnd) : 'never (lifetime)';

/** One spelling everywhere: "canceled", as the API says it. */
function stateOf(subscription: SubscriptionView): string {
  if (isRunning(subscription) && subscription.cancelAtPeriodEnd) return `canceled, active until ${periodEnd(subscription)}`;
  return subscription.status;
}

function planAction(plan: SubscriptionPlanView, current: SubscriptionView | undefined): SafeHtml {
  if (plan.planType === 0) return html`<span class="hint">no subscription needed</span>`;
  if (current && current.planId === plan.id) {
    // Canceled but still running: taking the same plan again would start a second subscription.
    return current.cancelAtPeriodEnd
      ? html`<span>your plan until ${periodEnd(current)} (canceled)</span>`
      : html`<strong>your current plan</strong>`;
  }
  const verb = current ? 'Switch to' : 'Subscribe to';
  return html`<a class="button" href="/subscriptions/plans/${encodeURIComponent(plan.id)}">${verb} ${plan.name}…</a>`;
}

/** A plan's quota in words: all the user's keys together, per UTC month and day. */
function describeQuota(quota: SubscriptionPlanView['quota']): string {
  const caps = [
    quota.perMonth === null ? null : `${quota.perMonth.toLocaleString('en-US')} a month`,
    quota.perDay === null ? null : `${quota.perDay.toLocaleString('en-US')} a day`,
  ].filter((cap) => cap !== null);
  return caps.length === 0 ? 'no cap' : `${caps.join(', ')}, all keys together`;
}

/** What a plan gives and how it runs, in words (price, interval and quota come from the plan records). */
const COMPARISON: ReadonlyArray<{ feature: string; of: (plan: SubscriptionPlanView) => string }> = [
  { feature: 'Price', of: (plan) => formatPrice(plan.price, plan.currency, plan.billingInterval) },
  { feature: 'API keys', of: (plan) => (plan.planType === 0 ? 'only during the trial' : 'yes, as many as you need') },
  { feature: 'Requests', of: (plan) => describeQuota(plan.quota) },
  {
    feature: 'Renewal',
    of: (plan) =>
      ({ month: 'every month until canceled', year: 'every year until canceled', lifetime: 'none: paid once, never ends' })[
        plan.billingInterval as 'month'
      ] ?? 'nothing to renew',
  },
  {
    feature: 'Canceling',
    of: (plan) =>
      plan.billingInterval === 'lifetime'
        ? 'ends it at once'
        : plan.planType === 0
          ? 'nothing to cancel'
          : 'keeps it to the end of the period',
  },
];

/** Plans side by side: one column per plan, one row per feature; on a phone one block per feature. */
function planComparison(plans: SubscriptionPlanView[], current: SubscriptionView | undefined): SafeHtml {
  const cells = (of: (plan: SubscriptionPlanView) => SafeHtml | string) =>
    plans.map((plan) => html`<td data-label="${plan.name}">${of(plan)}</td>`);
  return html`<table class="responsive compare"><caption class="visually-hidden">The plans compared</caption>
<thead><tr><td></td>${plans.map((plan) => html`<th scope="col">${plan.name}</th>`)}</tr></thead>
<tbody>${COMPARISON.map((row) => html`<tr><th scope="row">${row.feature}</th>${cells(row.of)}</tr>`)}
<tr><th scope="row">Choose</th>${cells((plan) => planAction(plan, current))}</tr></tbody></table>`;
}

function subscriptionRow(subscription: SubscriptionView, plans: SubscriptionPlanView[]): SafeHtml {
  const name = planName(subscription, plans);
  const cancel =
    isRunning(subscription) && !subscription.cancelAtPeriodEnd
      ? html`<a class="button danger" href="/subscriptions/${encodeURIComponent(subscription.id)}/cancel" aria-label="Cancel the ${name} subscription…">Cancel…</a>`
      : html`<span class="hint">—</span>`;
  return html`<tr><td data-label="Plan">${name}</td><td data-label="Status">${stateOf(subscription)}</td><td data-label="Started">${formatTime(subscription.currentPeriodStart)}</td><td data-label="Period ends">${periodEnd(subscription)}</td><td data-label="Action">${cancel}</td></tr>`;
}

export function subscriptionsPage(chrome: Chrome, data: SubscriptionsPageData): SafeHtml {
  const current = currentSubscription(data.subscriptions);
  const mine =
    data.subscriptions.length === 0
      ? html`<p>You have no subscriptions.</p>`
      : html`<table class="responsive"><thead><tr><th scope="col">Plan</th><th scope="col">Status</th><th scope="col">Started</th><th scope="col">Period ends</th><th scope="col">Action</th></tr></thead>
<tbody>${data.subscriptions.map((s) => subscriptionRow(s, data.plans))}</tbody></table>
<p class="hint">Canceling keeps your plan until the end of the period already paid for.</p>`;
  return layout(
    'Subscriptions',
    chrome,
    html`<section><h2>Compare the plans</h2>
${planComparison(data.plans, current)}
<p class="hint">There is no payment step in this system: a subscription is active at once. Switching plans ends the current one now, without proration.</p>
</section>
<section><h2>Your subscriptions</h2>${mine}</section>`,
  );
}

/** Asked before anything is bought: the plan, its price, and what happens to the current one. */
export function subscribePage(
  chrome: Chrome,
  plan: SubscriptionPlanView,
  current: SubscriptionView | undefined,
  currentName: string | null,
  idempotencyKey: string,
): SafeHtml {
  const price = formatPrice(plan.price, plan.currency, plan.billingInterval);
  const verb = current ? 'Switch to' : 'Subscribe to';
  return confirmPage(
    chrome,
    `${verb} ${plan.name}?`,
    html`<p>${verb} <strong>${plan.name}</strong> for <strong>${price}</strong>? It is active at once${plan.billingInterval === 'lifetime' ? ' and never ends' : ''}.</p>
${current ? html`<p class="warning">Your current ${currentName ?? 'plan'} subscription ends now, without proration.</p>` : ''}`,
    html`<form method="post" action="/subscriptions" class="confirm-actions">${csrfField(chrome.csrfToken)}
    <input type="hidden" name="planId" value="${plan.id}">
    <input type="hidden" name="idempotencyKey" value="${idempotencyKey}">
    <button type="submit">${verb} ${plan.name} (${price})</button>
    <a class="button secondary" href="/subscriptions">Back to the plans</a>
  </form>`,
  );
}

/** Asked before a cancellation: what stays and until when. */
export function cancelSubscriptionPage(chrome: Chrome, subscription: SubscriptionView, name: string): SafeHtml {
  const until = subscription.currentPeriodEnd
    ? html`It stays active until <strong>${formatTime(subscription.currentPeriodEnd)}</strong> and is not renewed.`
    : html`It ends now: a lifetime plan has no period to run out.`;
  return confirmPage(
    chrome,
    `Cancel your ${name} subscription?`,
    html`<p>Cancel your <strong>${name}</strong> subscription? ${until} API keys need an active subscription or trial.</p>`,
    html`<form method="post" action="/subscriptions/${encodeURIComponent(subscription.id)}/cancel" class="confirm-actions">${csrfField(chrome.csrfToken)}
    <button type="submit" class="danger-solid">Cancel the ${name} subscription</button>
    <a class="button secondary" href="/subscriptions">Keep it</a>
  </form>`,
  );
}
