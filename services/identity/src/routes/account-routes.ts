import { userActor } from '@acs/audit';
import { Router, handle, type AppState } from '@acs/http';
import { deleteAccountEndpoint } from '@acs/contracts';
import type { IdentityDeps } from '../domain/deps.js';
import { deleteAccount } from '../domain/delete-account.js';

/** Leaving (issue 32 item 5): the signed-in user deletes their account. */
export function accountRoutes(deps: IdentityDeps): Router<AppState> {
  const router = new Router<AppState>();
  handle(router, deleteAccountEndpoint, async (ctx, { caller, body }) => {
    ctx.set('Cache-Control', 'no-store');
    const from = { userId: caller.userId, clientIp: ctx.state.caller?.clientIp };
    ctx.body = await deleteAccount({ ...deps, logger: ctx.state.log, actor: userActor(ctx.state) }, from, body);
  });
  return router;
}
