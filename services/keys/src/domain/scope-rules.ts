import { ASSIGNABLE_SCOPES, SYSTEM_SCOPE, isScope, splitScopeString } from '@acs/auth';
import { badRequest } from '@acs/errors';

function parseKnownScopes(text: string, grantable: readonly string[]): string[] {
  const scopes = splitScopeString(text);
  const unknown = scopes.filter((scope) => !isScope(scope));
  if (unknown.length > 0)
    throw badRequest(`Unknown scope(s): ${unknown.join(', ')}. Known scopes: ${grantable.join(', ')}`, undefined, 'unknown_scope');
  if (scopes.length === 0) throw badRequest('At least one scope is required', undefined, 'scope_required');
  return scopes;
}

/** Operators (CLI, seed) may grant any known scope, `system:full-access` included. */
export function parseOperatorScopes(text: string): string[] {
  return parseKnownScopes(text, [...ASSIGNABLE_SCOPES, SYSTEM_SCOPE]);
}

/** Users (through the dashboard) may grant only the assignable scopes: system:full-access exists only in the data store. */
export function parseUserScopes(text: string): string[] {
  const scopes = parseKnownScopes(text, ASSIGNABLE_SCOPES);
  if (scopes.includes(SYSTEM_SCOPE))
    throw badRequest(`${SYSTEM_SCOPE} cannot be assigned through the API`, undefined, 'scope_not_grantable');
  return scopes;
}
