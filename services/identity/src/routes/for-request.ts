import { userActor } from '@acs/audit';
import type { AppContext } from '@acs/http';
import type { IdentityDeps } from '../domain/deps.js';

/**
 * The deps of one request: the use cases log with the request's logger (audit lines carry the request
 * id), and the audit trail names the request's user, its request id and client address as the actor.
 */
export const forRequest = (deps: IdentityDeps, ctx: AppContext): IdentityDeps => ({
  ...deps,
  logger: ctx.state.log,
  actor: userActor(ctx.state),
});
