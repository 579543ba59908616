import { Router, handle, type AppContext, type AppState } from '@acs/http';
import {
  changeWebhookEndpoint,
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookDeliveriesEndpoint,
  listWebhooksEndpoint,
  replayWebhookDeliveryEndpoint,
  rotateWebhookSecretEndpoint,
} from '@acs/contracts';
import type { WebhooksDeps } from '../domain/deps.js';
import {
  changeEndpoint,
  createEndpoint,
  getOwnEndpoint,
  listDeliveries,
  listOwnEndpoints,
  removeEndpoint,
  replay,
  rotateSecret,
} from '../domain/user-endpoints.js';

/** The use cases log with the request's own logger, so every line carries its request id. */
const forRequest = (deps: WebhooksDeps, ctx: AppContext): WebhooksDeps => ({ ...deps, logger: ctx.state.log });

/** The user's webhook operations: reached only through the gateway with system:full-access and the user's JWT. */
export function webhookRoutes(deps: WebhooksDeps): Router<AppState> {
  const router = new Router<AppState>();
  handle(router, listWebhooksEndpoint, async (ctx, { caller }) => {
    ctx.body = { items: await listOwnEndpoints(forRequest(deps, ctx), caller.userId) };
  });
  handle(router, createWebhookEndpoint, async (ctx, { caller, body }) => {
    ctx.body = await createEndpoint(forRequest(deps, ctx), caller.userId, body);
    ctx.status = 201;
    ctx.set('Cache-Control', 'no-store'); // the secret, shown this once
  });
  handle(router, getWebhookEndpoint, async (ctx, { caller, params }) => {
    ctx.body = await getOwnEndpoint(forRequest(deps, ctx), caller.userId, params.id!);
  });
  handle(router, changeWebhookEndpoint, async (ctx, { caller, params, body }) => {
    ctx.body = await changeEndpoint(forRequest(deps, ctx), caller.userId, params.id!, body);
  });
  handle(router, deleteWebhookEndpoint, async (ctx, { caller, params }) => {
    ctx.body = await removeEndpoint(forRequest(deps, ctx), caller.userId, params.id!);
  });
  handle(router, rotateWebhookSecretEndpoint, async (ctx, { caller, params }) => {
    ctx.body = await rotateSecret(forRequest(deps, ctx), caller.userId, params.id!);
    ctx.set('Cache-Control', 'no-store');
  });
  handle(router, listWebhookDeliveriesEndpoint, async (ctx, { caller, params, query }) => {
    ctx.body = await listDeliveries(forRequest(deps, ctx), caller.userId, params.id!, query);
  });
  handle(router, replayWebhookDeliveryEndpoint, async (ctx, { caller, params }) => {
    ctx.body = await replay(forRequest(deps, ctx), caller.userId, params.id!, params.deliveryId!);
    ctx.status = 202;
  });
  return router;
}
