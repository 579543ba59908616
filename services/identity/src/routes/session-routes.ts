import { Router, handle, type AppState } from '@acs/http';
import { endOtherSessionsEndpoint, endSessionEndpoint, listSessionsEndpoint } from '@acs/contracts';
import type { IdentityDeps } from '../domain/deps.js';
import { endOtherSessions, endSession, listSessions } from '../domain/sessions.js';

/** The user's sessions (issue 32). The gateway has refused ended sessions' tokens before these run. */
export function sessionRoutes(deps: IdentityDeps): Router<AppState> {
  const router = new Router<AppState>();
  handle(router, listSessionsEndpoint, async (ctx, { caller }) => {
    ctx.body = { items: await listSessions({ ...deps, logger: ctx.state.log }, caller.userId, ctx.state.caller?.sessionId) };
  });
  handle(router, endSessionEndpoint, async (ctx, { caller, params }) => {
    ctx.body = await endSession({ ...deps, logger: ctx.state.log }, caller.userId, params.id ?? '');
  });
  handle(router, endOtherSessionsEndpoint, async (ctx, { caller }) => {
    ctx.body = { ended: await endOtherSessions({ ...deps, logger: ctx.state.log }, caller.userId, ctx.state.caller?.sessionId ?? null) };
  });
  return router;
}
