import { Router, handle, parseInput, readJsonBody, type AppState } from '@acs/http';
import { loginEndpoint, registerEndpoint } from '@acs/contracts';
import type { IdentityDeps } from '../domain/deps.js';
import { registerUser, toRegisterResponse } from '../domain/register.js';
import { login } from '../domain/login.js';
import { sendVerificationLinkLater } from '../domain/email-verification.js';
import { registerBodySchema } from '../domain/user-input.js';
import { forRequest } from './for-request.js';

/** The public routes (the gateway has checked the key's scope: auth:register, auth:login). */
export function userRoutes(deps: IdentityDeps): Router<AppState> {
  const router = new Router<AppState>();
  handle(router, registerEndpoint, async (ctx) => {
    const input = parseInput(registerBodySchema, await readJsonBody(ctx, registerEndpoint.bodyLimitBytes), 'body');
    const user = await registerUser(forRequest(deps, ctx), input, ctx.state.caller?.clientIp);
    // The verification link goes out after the answer (issue 32): registration does not wait for SMTP.
    sendVerificationLinkLater(forRequest(deps, ctx), user);
    ctx.status = 201;
    ctx.body = toRegisterResponse(user);
  });
  handle(router, loginEndpoint, async (ctx, { body }) => {
    const answer = await login(forRequest(deps, ctx), body, ctx.state.caller?.clientIp, ctx.get('user-agent') || undefined);
    // A two-factor account's challenge (issue 32): 202, no token yet.
    if ('twoFactorRequired' in answer) ctx.status = 202;
    ctx.body = answer;
  });
  return router;
}
