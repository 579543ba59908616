import { ASSIGNABLE_SCOPES, SYSTEM_SCOPE, grantsScope } from '@acs/auth';
import { insufficientScopeError, methodNotAllowed, notFound } from '@acs/errors';
import type { KeyRecord } from '../auth/key-record.js';
import type { RouteSpec } from '../routing/route-table.js';
import type { ApiExchange, PipelineDeps, Step } from './exchange.js';
import { answer, refuse } from './refuse.js';

/** The scopes a user can put on a key that open a route, named by the scope 403's hint. */
const grantingScopes = new WeakMap<RouteSpec, string[]>();
function scopesOpening(route: RouteSpec): string[] {
  let scopes = grantingScopes.get(route);
  if (!scopes) {
    scopes = ASSIGNABLE_SCOPES.filter((scope) => grantsScope([scope], route.scope));
    grantingScopes.set(route, scopes);
  }
  return scopes;
}

/**
 * The address of the client the request is for: X-Forwarded-For only from TRUSTED_PROXIES, or from the service's own
 * web application (a system key), which says which browser it acts for, as a trusted proxy would.
 */
export function clientAddressOf(ex: ApiExchange, deps: PipelineDeps, record: KeyRecord): string {
  return deps.clientAddress(ex.req.socket.remoteAddress, ex.req.headers['x-forwarded-for'], record.scopes.includes(SYSTEM_SCOPE));
}

/** Step 3: the route exists for this method (404/405) and the key has its scope (403, naming the scope). */
export function authorizeRoute(ex: ApiExchange, deps: PipelineDeps): Step {
  const { found } = ex;
  const record = ex.record!;
  if (found.kind === 'none') return answer(ex, notFound(`No route for ${ex.method} ${ex.path}`));
  if (found.kind === 'wrong-method') return answer(ex, methodNotAllowed(found.allowed, `${ex.method} is not supported on ${ex.path}`));
  if (!grantsScope(record.scopes, found.route.scope)) return refuse(ex, deps, 'scope', insufficientScopeError(scopesOpening(found.route)));
  ex.route = found.route;
  const clientIp = ex.clientIp ?? clientAddressOf(ex, deps, record);
  ex.context = { requestId: ex.requestId, keyId: record.id, scopes: record.scopes, clientIp };
  return undefined;
}
