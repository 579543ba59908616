import { Router, handle, type AppState } from '@acs/http';
import {
  completeTwoFactorLoginEndpoint,
  confirmTwoFactorEndpoint,
  disableTwoFactorEndpoint,
  enrollTwoFactorEndpoint,
  regenerateRecoveryCodesEndpoint,
} from '@acs/contracts';
import { disableTwoFactor, regenerateRecoveryCodes } from '../domain/manage-two-factor.js';
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
  handle(router, disableTwoFactorEndpoint, async (ctx, { caller, body }) => {
    const from = { userId: caller.userId, clientIp: ctx.state.caller?.clientIp };
    ctx.body = await disableTwoFactor({ ...deps, logger: ctx.state.log }, from, body);
  });
  handle(router, regenerateRecoveryCodesEndpoint, async (ctx, { caller, body }) => {
    ctx.set('Cache-Control', 'no-store');
    const from = { userId: caller.userId, clientIp: ctx.state.caller?.clientIp };
    ctx.body = await regenerateRecoveryCodes({ ...deps, logger: ctx.state.log }, from, body.code);
  });
  return router;
}
