import { Router, handle, type AppState } from '@acs/http';
import { getAccountEndpoint, resendVerificationEndpoint, verifyEmailEndpoint } from '@acs/contracts';
import type { IdentityDeps } from '../domain/deps.js';
import { accountView, resendVerification, verifyEmail } from '../domain/email-verification.js';

/** E-mail verification and the account's own view (issue 32, item 3). */
export function verificationRoutes(deps: IdentityDeps): Router<AppState> {
  const router = new Router<AppState>();
  handle(router, verifyEmailEndpoint, async (ctx, { body }) => {
    ctx.body = await verifyEmail({ ...deps, logger: ctx.state.log }, body.token);
  });
  handle(router, resendVerificationEndpoint, async (ctx, { caller }) => {
    ctx.status = 202;
    ctx.body = await resendVerification({ ...deps, logger: ctx.state.log }, caller.userId);
  });
  handle(router, getAccountEndpoint, async (ctx, { caller }) => {
    ctx.body = await accountView(deps, caller.userId);
  });
  return router;
}
