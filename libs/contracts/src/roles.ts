/**
 * The spec's user roles, in one table for every service, the gateway and the CLIs. A role is a
 * number on the wire (JWT `role`, the signed caller context) and ordered: a route that needs
 * Subscriber admits Admin too.
 */
export const ROLE = { free: 0, subscriber: 1, admin: 2, superAdmin: 3 } as const;
export type Role = (typeof ROLE)[keyof typeof ROLE];

/** The names operators type (`npm run users -- set-role --role admin`), indexed by role. */
export const ROLE_NAMES = ['free', 'subscriber', 'admin', 'superadmin'] as const;
export type RoleName = (typeof ROLE_NAMES)[number];

export const roleName = (role: number): string => ROLE_NAMES[role] ?? `role ${role}`;
