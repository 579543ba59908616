import { cancelSubscriptionEndpoint, createSubscriptionEndpoint, listSubscriptionsEndpoint } from '@acs/contracts';
import { userActor } from '@acs/audit';
import { Router, handle, type AppContext, type AppState } from '@acs/http';
import { badRequest } from '@acs/errors';
import { IDEMPOTENCY_KEY_HEADER, idempotencyKeySchema } from '../contracts.js';
import type { BillingDeps } from '../domain/deps.js';
import { cancelSubscription } from '../domain/cancel-subscription.js';
import { listUserSubscriptions } from '../domain/list-subscriptions.js';
import { subscribe } from '../domain/subscribe.js';

function idempotencyKey(ctx: AppContext): string | null {
  const raw = ctx.get(IDEMPOTENCY_KEY_HEADER);
  if (raw === '') return null;
  const parsed = idempotencyKeySchema.safeParse(raw);
  if (!parsed.success)
    throw badRequest('The Idempotency-Key header is invalid', [
      { path: `header.${IDEMPOTENCY_KEY_HEADER}`, message: 'expected 1-255 visible ASCII characters' },
    ]);
  return parsed.data;
}

/** The audit trail names the request's user, request id and client address. */
const forRequest = (deps: BillingDeps, ctx: AppContext): BillingDeps => ({ ...deps, actor: userActor(ctx.state) });

/** The user's subscription operations: reached only through the gateway with system:full-access and the user's JWT. */
export function subscriptionRoutes(deps: BillingDeps): Router<AppState> {
  const router = new Router<AppState>();
  handle(router, listSubscriptionsEndpoint, async (ctx, { caller }) => {
    ctx.body = { items: await listUserSubscriptions(deps, caller.userId) };
  });
  handle(router, createSubscriptionEndpoint, async (ctx, { caller, body }) => {
    const answer = await subscribe(forRequest(deps, ctx), caller.userId, body, idempotencyKey(ctx));
    ctx.status = answer.status;
    ctx.set('Cache-Control', 'no-store');
    if (answer.replayed) ctx.set('Idempotent-Replayed', 'true');
    ctx.body = answer.body;
  });
  handle(router, cancelSubscriptionEndpoint, async (ctx, { caller, params }) => {
    ctx.body = await cancelSubscription(forRequest(deps, ctx), caller.userId, params.id!);
  });
  return router;
}
