import { Router, parseInput, readJsonBody, requireCaller, type AppContext, type AppState } from '@acs/http';
import { badRequest } from '@acs/errors';
import { IDEMPOTENCY_KEY_HEADER, idempotencyKeySchema, subscriptionCreateRequestSchema } from '../contracts.js';
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

/** /api/Subscriptions: reached only through the gateway with system:full-access and the user's JWT. */
export function subscriptionRoutes(deps: BillingDeps): Router<AppState> {
  const router = new Router<AppState>();
  router.get('/api/Subscriptions', async (ctx) => {
    ctx.body = { items: await listUserSubscriptions(deps, requireCaller(ctx).userId) };
  });
  router.post('/api/Subscriptions', async (ctx) => {
    const { userId } = requireCaller(ctx);
    const key = idempotencyKey(ctx);
    const body = parseInput(subscriptionCreateRequestSchema, await readJsonBody(ctx), 'body');
    const answer = await subscribe(deps, userId, body, key);
    ctx.status = answer.status;
    ctx.set('Cache-Control', 'no-store');
    if (answer.replayed) ctx.set('Idempotent-Replayed', 'true');
    ctx.body = answer.body;
  });
  router.delete('/api/Subscriptions/:id', async (ctx) => {
    ctx.body = await cancelSubscription(deps, requireCaller(ctx).userId, ctx.params.id!);
  });
  return router;
}
