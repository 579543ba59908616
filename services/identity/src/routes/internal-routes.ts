import { Router, parseInput, readJsonBody, type AppState } from '@acs/http';
import {
  AUTHZ_LOOKUP_PATH,
  JWKS_PATH,
  SESSION_SEEN_PATH,
  authzLookupRequestSchema,
  sessionSeenRequestSchema,
  type authzLookupResponseSchema,
} from '@acs/contracts';
import { sessionSeen } from '../domain/sessions.js';
import type { z } from 'zod';
import type { IdentityDeps } from '../domain/deps.js';
import { lookupAuthzForGateway } from '../domain/lookup-authz.js';

/**
 * Routes only the gateway calls. The JWKS is public through the gateway, which republishes it;
 * here, like every non-probe route, it needs the gateway's signature.
 */
export function internalRoutes(deps: IdentityDeps): Router<AppState> {
  const router = new Router<AppState>();
  router.post(AUTHZ_LOOKUP_PATH, async (ctx) => {
    const { userId } = parseInput(authzLookupRequestSchema, await readJsonBody(ctx), 'body');
    const response: z.infer<typeof authzLookupResponseSchema> = { record: await lookupAuthzForGateway(deps, userId) };
    ctx.body = response;
  });
  // The gateway reports a session in use, at most every few minutes per replica (issue 32: last seen).
  router.post(SESSION_SEEN_PATH, async (ctx) => {
    const { userId, sessionId } = parseInput(sessionSeenRequestSchema, await readJsonBody(ctx), 'body');
    await sessionSeen(deps, userId, sessionId);
    ctx.body = { ok: true };
  });
  router.get(JWKS_PATH, (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.body = deps.signer.jwks;
  });
  return router;
}
