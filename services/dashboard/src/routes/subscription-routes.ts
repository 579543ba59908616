import { randomBytes } from 'node:crypto';
import type { SubscriptionPlanView, SubscriptionView } from '@acs/contracts';
import type { AccountApi } from '../gateway-client/account-api.js';
import { isGatewayError } from '../gateway-client/gateway-error.js';
import { isInsufficientRole } from '../gateway-client/user-messages.js';
import { redirectTo, showPage, type PageHandler, type PageRequest, type PageResponse } from '../http/page.js';
import type { RouteDefinition } from '../http/router.js';
import { formatTime, planTypeName } from '../pages/labels.js';
import { messagePage } from '../pages/message-page.js';
import {
  cancelSubscriptionPage,
  currentSubscription,
  subscribePage,
  subscriptionsPage,
  type SubscriptionsPageData,
} from '../pages/subscriptions-page.js';
import { notice } from '../session/flash.js';
import { callerOf, chromeFor, failureOf, field, requireSignIn, sessionEnded, type Failure } from './route-kit.js';

/** Billing's Idempotency-Key format: 1-255 visible ASCII characters. */
const IDEMPOTENCY_KEY = /^[\x21-\x7E]{1,255}$/;
const SUBSCRIPTION_TOPIC = { notFound: 'That subscription or plan was not found in your account.' };

const newIdempotencyKey = (): string => `dashboard-${randomBytes(18).toString('base64url')}`;

/** Plans and the user's subscriptions, or the page that explains why not. */
async function load(api: AccountApi, req: PageRequest): Promise<SubscriptionsPageData | PageResponse> {
  try {
    const [plans, subscriptions] = await Promise.all([api.listPlans(callerOf(req)), api.listSubscriptions(callerOf(req))]);
    return { plans, subscriptions };
  } catch (err) {
    // Any signed-in user may list their subscriptions: a refusal here means the token is no longer accepted.
    if (isGatewayError(err) && isInsufficientRole(err)) return sessionEnded();
    const problem = failureOf(err, req);
    return showPage(messagePage(chromeFor(req), 'Subscriptions', problem.message), problem.status, problem.headers);
  }
}

/** The subscriptions page, with the refusal of a subscribe or cancel when one came. */
async function render(api: AccountApi, req: PageRequest, failure: Failure | null = null): Promise<PageResponse> {
  const loaded = await load(api, req);
  if ('status' in loaded) return loaded;
  return showPage(subscriptionsPage(chromeFor(req, failure?.message ?? null), loaded), failure?.status ?? 200, failure?.headers);
}

const notFound = (req: PageRequest) => showPage(messagePage(chromeFor(req), 'Not found', SUBSCRIPTION_TOPIC.notFound), 404);
const nameOf = (subscription: SubscriptionView, plans: SubscriptionPlanView[]) =>
  plans.find((p) => p.id === subscription.planId)?.name ?? planTypeName(subscription.planType);

async function confirmSubscribe(api: AccountApi, req: PageRequest): Promise<PageResponse> {
  const loaded = await load(api, req);
  if ('status' in loaded) return loaded;
  const plan = loaded.plans.find((p) => p.id === req.params.planId && p.planType !== 0);
  if (!plan) return notFound(req);
  const current = currentSubscription(loaded.subscriptions);
  // The form's own key: the same form sent twice (double click, back and resend) subscribes once.
  return showPage(subscribePage(chromeFor(req), plan, current, current ? nameOf(current, loaded.plans) : null, newIdempotencyKey()));
}

async function confirmCancel(api: AccountApi, req: PageRequest): Promise<PageResponse> {
  const loaded = await load(api, req);
  if ('status' in loaded) return loaded;
  const subscription = loaded.subscriptions.find((s) => s.id === req.params.id && s.status === 'active' && !s.cancelAtPeriodEnd);
  if (!subscription) return notFound(req);
  return showPage(cancelSubscriptionPage(chromeFor(req), subscription, nameOf(subscription, loaded.plans)));
}

async function subscribe(api: AccountApi, req: PageRequest): Promise<PageResponse> {
  const planId = field(req.form, 'planId');
  // The confirmation form's own key (see confirmSubscribe).
  const sent = field(req.form, 'idempotencyKey');
  const idempotencyKey = IDEMPOTENCY_KEY.test(sent) ? sent : newIdempotencyKey();
  try {
    const subscription = await api.subscribe(callerOf(req), planId, idempotencyKey);
    const until = subscription.currentPeriodEnd ? ` until ${formatTime(subscription.currentPeriodEnd)}` : '';
    return redirectTo('/subscriptions', {
      flash: notice(`Your subscription is active${until}. API keys can be managed right away.`),
    });
  } catch (err) {
    return render(api, req, failureOf(err, req, SUBSCRIPTION_TOPIC));
  }
}

async function cancel(api: AccountApi, req: PageRequest): Promise<PageResponse> {
  try {
    const canceled = await api.cancelSubscription(callerOf(req), req.params.id!);
    const message =
      canceled.status === 'active' && canceled.currentPeriodEnd
        ? `Your subscription is canceled. It stays active until ${formatTime(canceled.currentPeriodEnd)}.`
        : 'Your subscription is canceled.';
    return redirectTo('/subscriptions', { flash: notice(message) });
  } catch (err) {
    return render(api, req, failureOf(err, req, SUBSCRIPTION_TOPIC));
  }
}

/** Plans, the user's subscriptions, subscribe and cancel. */
export function subscriptionRoutes(api: AccountApi): RouteDefinition<PageHandler>[] {
  return [
    { method: 'GET', pattern: '/subscriptions', handler: requireSignIn((req) => render(api, req)) },
    { method: 'GET', pattern: '/subscriptions/plans/{planId}', handler: requireSignIn((req) => confirmSubscribe(api, req)) },
    { method: 'GET', pattern: '/subscriptions/{id}/cancel', handler: requireSignIn((req) => confirmCancel(api, req)) },
    { method: 'POST', pattern: '/subscriptions', handler: requireSignIn((req) => subscribe(api, req)) },
    { method: 'POST', pattern: '/subscriptions/{id}/cancel', handler: requireSignIn((req) => cancel(api, req)) },
  ];
}
