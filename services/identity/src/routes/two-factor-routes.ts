import { Router, handle, type AppState } from '@acs/http';
import { completeTwoFactorLoginEndpoint, confirmTwoFactorEndpoint, enrollTwoFactorEndpoint } from '@acs/contracts';
import type { IdentityDeps } from '../domain/deps.js';
import { forRequest } from './for-request.js';
import { completeTwoFactorLogin, confirmTwoFactor, enrollTwoFactor } from '../domain/two-factor.js';

/** Two-factor sign-in (issue 32, item 4): enroll, confirm, and the second step of a sign-in. */
export function twoFactorRoutes(deps: IdentityDeps): Router<AppState> {
  const router = new Router<AppState>();
  handle(router, enrollTwoFactorEndpoint, async (ctx, { caller }) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await enrollTwoFactor(forRequest(deps, ctx), caller.userId);
  });
  handle(router, confirmTwoFactorEndpoint, async (ctx, { caller, body }) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await confirmTwoFactor(forRequest(deps, ctx), caller.userId, body.code);
  });
  handle(router, completeTwoFactorLoginEndpoint, async (ctx, { body }) => {
    const from = { userAgent: ctx.get('user-agent') || undefined, clientIp: ctx.state.caller?.clientIp };
    ctx.body = await completeTwoFactorLogin(forRequest(deps, ctx), body, from);
  });
  return router;
}
