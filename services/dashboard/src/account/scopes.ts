/**
 * The scopes a user may put on a key, as the spec's Scopes table lists them. The gateway is the
 * judge (it refuses anything else, system:full-access included); this list only draws the form.
 */
export const ASSIGNABLE_SCOPES = [
  { name: 'auth:login', grants: 'sign users in and list their devices' },
  { name: 'auth:register', grants: 'create user accounts' },
  { name: 'register:device', grants: 'register devices to signed-in users' },
  { name: 'read:devices', grants: 'read the catalog and the plans' },
  { name: 'write:devices', grants: 'import catalog data (with an Admin sign-in); includes read:devices' },
] as const;

/** The checked boxes of a form, in the spec's "names separated by single spaces" form; unknown names are kept for the gateway to refuse. */
export function scopesFromForm(values: string[]): string {
  return [...new Set(values.map((v) => v.trim()).filter((v) => v.length > 0))].join(' ');
}
