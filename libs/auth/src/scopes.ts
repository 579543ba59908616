/** Scopes a user may put on an API key (docs/api-contract.md, "Scopes"). */
export const ASSIGNABLE_SCOPES = ['auth:login', 'auth:register', 'register:device', 'read:devices', 'write:devices'] as const;

/** Held only by the service's own web application; exists only in the data store, never assignable through the API. */
export const SYSTEM_SCOPE = 'system:full-access';

export const ALL_SCOPES = [...ASSIGNABLE_SCOPES, SYSTEM_SCOPE] as const;

export type AssignableScope = (typeof ASSIGNABLE_SCOPES)[number];
export type Scope = (typeof ALL_SCOPES)[number];

const KNOWN = new Set<string>(ALL_SCOPES);
export const isScope = (value: string): value is Scope => KNOWN.has(value);

/**
 * Does a key holding `held` satisfy `required`? `system:full-access` satisfies everything and
 * `write:devices` also satisfies `read:devices` (the spec's Scopes table). On the gateway's hot path.
 */
export function grantsScope(held: readonly string[], required: Scope): boolean {
  for (const scope of held) {
    if (scope === required || scope === SYSTEM_SCOPE) return true;
    if (required === 'read:devices' && scope === 'write:devices') return true;
  }
  return false;
}

/** Splits the spec's "scope names separated by single spaces" form; repeated names collapse, order kept. */
export function splitScopeString(text: string): string[] {
  return [...new Set(text.split(' ').filter((part) => part.length > 0))];
}
