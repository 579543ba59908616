import { Router, parseInput, parseQuery, readJsonBody, requireCaller, type AppContext, type AppState } from '@acs/http';
import {
  ROLE,
  apiKeyChangeRequestSchema,
  apiKeyCreateRequestSchema,
  apiKeyRollRequestSchema,
  apiKeyUsageQuerySchema,
  type ApiKeyCreatedResponseBody,
  type ApiKeyView,
} from '@acs/contracts';
import type { ApiKey } from '../domain/api-key.js';
import type { KeysDeps } from '../domain/deps.js';
import {
  changeUserKey,
  createUserKey,
  listUserKeys,
  revokeUserKey,
  rollUserKey,
  userKeyUsage,
  type UserKeyRules,
} from '../domain/user-keys.js';

function toView(apiKey: ApiKey): ApiKeyView {
  return {
    id: apiKey.id,
    name: apiKey.name,
    key: apiKey.key,
    scopes: apiKey.scopes.join(' '),
    environment: apiKey.environment,
    createdAt: apiKey.createdAt.toISOString(),
    lastUsedAt: apiKey.lastUsedAt?.toISOString() ?? null,
    revokedAt: apiKey.revokedAt?.toISOString() ?? null,
    rateLimits: apiKey.rateLimits,
    expiresAt: apiKey.expiresAt?.toISOString() ?? null,
    // Only while the replaced secret still works: afterwards it is history, not state.
    graceEndsAt:
      apiKey.previousSecretEndsAt && apiKey.previousSecretEndsAt.getTime() > Date.now() ? apiKey.previousSecretEndsAt.toISOString() : null,
  };
}

/** The use cases log (and audit) with the request's own logger, so every line carries its request id. */
const forRequest = (deps: KeysDeps, ctx: AppContext): KeysDeps => ({ ...deps, logger: ctx.state.log });

/** /api/ApiKeys: reached only through the gateway with system:full-access and the user's JWT. */
export function apiKeyRoutes(deps: KeysDeps, rules: UserKeyRules): Router<AppState> {
  const router = new Router<AppState>();
  router.get('/api/ApiKeys', async (ctx) => {
    ctx.body = { items: (await listUserKeys(forRequest(deps, ctx), requireCaller(ctx, { minRole: ROLE.subscriber }).userId)).map(toView) };
  });
  router.post('/api/ApiKeys', async (ctx) => {
    const { userId } = requireCaller(ctx, { minRole: ROLE.subscriber });
    const body = parseInput(apiKeyCreateRequestSchema, await readJsonBody(ctx), 'body');
    const { apiKey, secret } = await createUserKey(forRequest(deps, ctx), userId, body, rules);
    const { lastUsedAt: _l, revokedAt: _r, graceEndsAt: _g, ...view } = toView(apiKey);
    const created: ApiKeyCreatedResponseBody = { ...view, secret };
    ctx.status = 201;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = created;
  });
  router.patch('/api/ApiKeys/:id', async (ctx) => {
    const { userId } = requireCaller(ctx, { minRole: ROLE.subscriber });
    const body = parseInput(apiKeyChangeRequestSchema, await readJsonBody(ctx), 'body');
    ctx.body = toView(await changeUserKey(forRequest(deps, ctx), userId, ctx.params.id!, body, rules.rateLimitCeiling));
  });
  // A new secret, the old one working for graceSeconds more (the body is optional: the default grace).
  router.post('/api/ApiKeys/:id/roll', async (ctx) => {
    const { userId } = requireCaller(ctx, { minRole: ROLE.subscriber });
    const hasBody = Number(ctx.get('content-length') || 0) > 0 || Boolean(ctx.get('transfer-encoding'));
    const { graceSeconds } = parseInput(apiKeyRollRequestSchema, hasBody ? await readJsonBody(ctx) : {}, 'body');
    const { apiKey, secret } = await rollUserKey(forRequest(deps, ctx), userId, ctx.params.id!, graceSeconds);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { ...toView(apiKey), secret };
  });
  router.get('/api/ApiKeys/:id/usage', async (ctx) => {
    const { userId } = requireCaller(ctx);
    const { days } = parseQuery(apiKeyUsageQuerySchema, ctx);
    ctx.body = await userKeyUsage(forRequest(deps, ctx), userId, ctx.params.id!, days);
  });
  router.delete('/api/ApiKeys/:id', async (ctx) => {
    ctx.body = toView(await revokeUserKey(forRequest(deps, ctx), requireCaller(ctx).userId, ctx.params.id!));
  });
  return router;
}
