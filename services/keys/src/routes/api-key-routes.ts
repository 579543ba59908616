import { Router, parseInput, readJsonBody, requireCaller, type AppContext, type AppState } from '@acs/http';
import { ROLE, apiKeyChangeRequestSchema, apiKeyCreateRequestSchema, type ApiKeyCreatedResponseBody, type ApiKeyView } from '@acs/contracts';
import type { ApiKey } from '../domain/api-key.js';
import type { KeysDeps } from '../domain/deps.js';
import { changeUserKey, createUserKey, listUserKeys, revokeUserKey } from '../domain/user-keys.js';

export function toView(apiKey: ApiKey): ApiKeyView {
  return {
    id: apiKey.id,
    name: apiKey.name,
    key: apiKey.key,
    scopes: apiKey.scopes.join(' '),
    environment: apiKey.environment,
    createdAt: apiKey.createdAt.toISOString(),
    lastUsedAt: apiKey.lastUsedAt?.toISOString() ?? null,
    revokedAt: apiKey.revokedAt?.toISOString() ?? null,
  };
}

/** The use cases log (and audit) with the request's own logger, so every line carries its request id. */
const forRequest = (deps: KeysDeps, ctx: AppContext): KeysDeps => ({ ...deps, logger: ctx.state.log });

/** /api/ApiKeys: reached only through the gateway with system:full-access and the user's JWT. */
export function apiKeyRoutes(deps: KeysDeps, keysPerUser: number): Router<AppState> {
  const router = new Router<AppState>();
  router.get('/api/ApiKeys', async (ctx) => {
    ctx.body = { items: (await listUserKeys(forRequest(deps, ctx), requireCaller(ctx, { minRole: ROLE.subscriber }).userId)).map(toView) };
  });
  router.post('/api/ApiKeys', async (ctx) => {
    const { userId } = requireCaller(ctx, { minRole: ROLE.subscriber });
    const body = parseInput(apiKeyCreateRequestSchema, await readJsonBody(ctx), 'body');
    const { apiKey, secret } = await createUserKey(forRequest(deps, ctx), userId, body, keysPerUser);
    const { lastUsedAt: _l, revokedAt: _r, ...view } = toView(apiKey);
    const created: ApiKeyCreatedResponseBody = { ...view, secret };
    ctx.status = 201;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = created;
  });
  router.patch('/api/ApiKeys/:id', async (ctx) => {
    const { userId } = requireCaller(ctx, { minRole: ROLE.subscriber });
    const body = parseInput(apiKeyChangeRequestSchema, await readJsonBody(ctx), 'body');
    ctx.body = toView(await changeUserKey(forRequest(deps, ctx), userId, ctx.params.id!, body));
  });
  router.delete('/api/ApiKeys/:id', async (ctx) => {
    ctx.body = toView(await revokeUserKey(forRequest(deps, ctx), requireCaller(ctx).userId, ctx.params.id!));
  });
  return router;
}
