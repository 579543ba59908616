import { Router, handle, type AppState } from '@acs/http';
import { changePasswordEndpoint, completePasswordResetEndpoint, requestPasswordResetEndpoint } from '@acs/contracts';
import type { IdentityDeps } from '../domain/deps.js';
import { changePassword } from '../domain/change-password.js';
import { completePasswordReset, requestPasswordReset } from '../domain/password-reset.js';

/** Password change (signed in) and reset by e-mail (issue 32, item 2). */
export function passwordRoutes(deps: IdentityDeps): Router<AppState> {
  const router = new Router<AppState>();
  handle(router, changePasswordEndpoint, async (ctx, { caller, body }) => {
    const from = { userId: caller.userId, sessionId: ctx.state.caller?.sessionId, clientIp: ctx.state.caller?.clientIp };
    ctx.body = await changePassword({ ...deps, logger: ctx.state.log }, from, body);
  });
  handle(router, requestPasswordResetEndpoint, async (ctx, { body }) => {
    ctx.status = 202;
    ctx.body = await requestPasswordReset({ ...deps, logger: ctx.state.log }, body.email, ctx.state.caller?.clientIp);
  });
  handle(router, completePasswordResetEndpoint, async (ctx, { body }) => {
    ctx.body = await completePasswordReset({ ...deps, logger: ctx.state.log }, body.token, body.newPassword);
  });
  return router;
}
