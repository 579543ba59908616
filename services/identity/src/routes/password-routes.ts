import { Router, handle, type AppState } from '@acs/http';
import { changePasswordEndpoint, completePasswordResetEndpoint, requestPasswordResetEndpoint } from '@acs/contracts';
import type { IdentityDeps } from '../domain/deps.js';
import { forRequest } from './for-request.js';
import { changePassword } from '../domain/change-password.js';
import { completePasswordReset, requestPasswordReset } from '../domain/password-reset.js';

/** Password change (signed in) and reset by e-mail (issue 32, item 2). */
export function passwordRoutes(deps: IdentityDeps): Router<AppState> {
  const router = new Router<AppState>();
  handle(router, changePasswordEndpoint, async (ctx, { caller, body }) => {
    const from = { userId: caller.userId, sessionId: ctx.state.caller?.sessionId, clientIp: ctx.state.caller?.clientIp };
    ctx.body = await changePassword(forRequest(deps, ctx), from, body);
  });
  handle(router, requestPasswordResetEndpoint, async (ctx, { body }) => {
    ctx.status = 202;
    ctx.body = await requestPasswordReset(forRequest(deps, ctx), body.email, ctx.state.caller?.clientIp);
  });
  handle(router, completePasswordResetEndpoint, async (ctx, { body }) => {
    ctx.body = await completePasswordReset(forRequest(deps, ctx), body.token, body.newPassword);
  });
  return router;
}
