import { Router, parseInput, readJsonBody, type AppContext, type AppState } from '@acs/http';
import { loginRequestSchema } from '@acs/contracts';
import type { IdentityDeps } from '../domain/deps.js';
import { registerUser, toRegisterResponse } from '../domain/register.js';
import { login } from '../domain/login.js';
import { registerBodySchema } from '../domain/user-input.js';

/** Register and login bodies are a few hundred bytes; anything near this is not a sign-up form. */
const USER_BODY_LIMIT_BYTES = 8 * 1024;

/** The use cases log with the request's logger, so audit lines carry the request id. */
const forRequest = (deps: IdentityDeps, ctx: AppContext): IdentityDeps => ({ ...deps, logger: ctx.state.log });

/** The public routes (the gateway has checked the key's scope: auth:register, auth:login). */
export function userRoutes(deps: IdentityDeps): Router<AppState> {
  const router = new Router<AppState>();
  router.post('/api/Users/Register', async (ctx) => {
    const input = parseInput(registerBodySchema, await readJsonBody(ctx, USER_BODY_LIMIT_BYTES), 'body');
    const user = await registerUser(forRequest(deps, ctx), input, ctx.state.caller?.clientIp);
    ctx.status = 201;
    ctx.body = toRegisterResponse(user);
  });
  router.post('/api/Users/Login', async (ctx) => {
    const input = parseInput(loginRequestSchema, await readJsonBody(ctx, USER_BODY_LIMIT_BYTES), 'body');
    ctx.body = await login(forRequest(deps, ctx), input, ctx.state.caller?.clientIp);
  });
  return router;
}
