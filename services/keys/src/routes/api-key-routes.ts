import { userActor } from '@acs/audit';
import { Router, handle, type AppContext, type AppState } from '@acs/http';
import {
  changeApiKeyEndpoint,
  createApiKeyEndpoint,
  listApiKeysEndpoint,
  revokeApiKeyEndpoint,
  rollApiKeyEndpoint,
  type ApiKeyCreatedResponseBody,
  type ApiKeyView,
} from '@acs/contracts';
import { AppError } from '@acs/errors';
import type { ApiKey } from '../domain/api-key.js';
import type { KeysDeps } from '../domain/deps.js';
import { changeUserKey, createUserKey, listUserKeys, revokeUserKey, rollUserKey, type UserKeyRules } from '../domain/user-keys.js';

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
    revokedReason: apiKey.revokedReason,
    exposedAt: apiKey.exposedAt?.toISOString() ?? null,
    rateLimits: apiKey.rateLimits,
    ipAllowList: apiKey.ipAllowList,
    expiresAt: apiKey.expiresAt?.toISOString() ?? null,
    // Only while the replaced secret still works: afterwards it is history, not state.
    graceEndsAt:
      apiKey.previousSecretEndsAt && apiKey.previousSecretEndsAt.getTime() > Date.now() ? apiKey.previousSecretEndsAt.toISOString() : null,
  };
}

const emailUnverified = (): AppError =>
  new AppError('forbidden', 'E-mail address not verified', 'API keys can be created once your e-mail address is verified', {
    code: 'email_unverified',
    hint: 'Open the link sent to your address at registration, or ask for a new one (POST /api/Users/VerifyEmail/Resend).',
  });

/**
 * The use cases log with the request's own logger, so every line carries its request id, and the
 * audit trail names the signed-in user, the request and the client address the gateway signed.
 */
const forRequest = (deps: KeysDeps, ctx: AppContext): KeysDeps => ({
  ...deps,
  logger: ctx.state.log,
  actor: userActor(ctx.state),
});

/** The user's key operations: reached only through the gateway with system:full-access and the user's JWT. */
export function apiKeyRoutes(deps: KeysDeps, rules: UserKeyRules): Router<AppState> {
  const router = new Router<AppState>();
  handle(router, listApiKeysEndpoint, async (ctx, { caller }) => {
    ctx.body = { items: (await listUserKeys(forRequest(deps, ctx), caller.userId)).map(toView) };
  });
  handle(router, createApiKeyEndpoint, async (ctx, { caller, body }) => {
    // The gateway marks an unverified address from the user's authorization record (identity writes it).
    if (rules.requireVerifiedEmail && ctx.state.caller?.emailUnverified === true) throw emailUnverified();
    const { apiKey, secret } = await createUserKey(forRequest(deps, ctx), caller.userId, body, rules);
    const { lastUsedAt: _l, revokedAt: _r, graceEndsAt: _g, revokedReason: _rr, exposedAt: _e, ...view } = toView(apiKey);
    const created: ApiKeyCreatedResponseBody = { ...view, secret };
    ctx.status = 201;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = created;
  });
  handle(router, changeApiKeyEndpoint, async (ctx, { caller, body, params }) => {
    ctx.body = toView(await changeUserKey(forRequest(deps, ctx), caller.userId, params.id!, body, rules.rateLimitCeiling));
  });
  // A new secret, the old one working for graceSeconds more (the body is optional: the default grace).
  handle(router, rollApiKeyEndpoint, async (ctx, { caller, body, params }) => {
    const { apiKey, secret } = await rollUserKey(forRequest(deps, ctx), caller.userId, params.id!, body.graceSeconds);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { ...toView(apiKey), secret };
  });
  handle(router, revokeApiKeyEndpoint, async (ctx, { caller, params }) => {
    ctx.body = toView(await revokeUserKey(forRequest(deps, ctx), caller.userId, params.id!));
  });
  return router;
}
