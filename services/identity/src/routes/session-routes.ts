import { Router, handle, type AppState } from '@acs/http';
import { endOtherSessionsEndpoint, endSessionEndpoint, listSessionsEndpoint } from '@acs/contracts';
import type { IdentityDeps } from '../domain/deps.js';
import { forRequest } from './for-request.js';
import { endOtherSessions, endSession, listSessions } from '../domain/sessions.js';

/** The user's sessions (issue 32). The gateway has refused ended sessions' tokens before these run. */
export function sessionRoutes(deps: IdentityDeps): Router<AppState> {
  const router = new Router<AppState>();
  handle(router, listSessionsEndpoint, async (ctx, { caller }) => {
    ctx.body = { items: await listSessions(forRequest(deps, ctx), caller.userId, ctx.state.caller?.sessionId) };
  });
  handle(router, endSessionEndpoint, async (ctx, { caller, params }) => {
    ctx.body = await endSession(forRequest(deps, ctx), caller.userId, params.id ?? '', ctx.state.caller?.sessionId);
  });
  handle(router, endOtherSessionsEndpoint, async (ctx, { caller }) => {
    ctx.body = { ended: await endOtherSessions(forRequest(deps, ctx), caller.userId, ctx.state.caller?.sessionId ?? null) };
  });
  return router;
}
