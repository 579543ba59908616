import { ASSIGNABLE_SCOPES, SYSTEM_SCOPE, isScope, splitScopeString } from '@acs/auth';
import { badRequest } from '@acs/errors';

/** Operators (CLI, seed) may grant any known scope, `system:full-access` included. */
export function parseOperatorScopes(text: string): string[] {
  const scopes = splitScopeString(text);
  const unknown = scopes.filter((scope) => !isScope(scope));
  if (unknown.length > 0) throw badRequest(`Unknown scope(s): ${unknown.join(', ')}. Known scopes: ${[...ASSIGNABLE_SCOPES, SYSTEM_SCOPE].join(', ')}`);
  if (scopes.length === 0) throw badRequest('At least one scope is required');
  return scopes;
}
