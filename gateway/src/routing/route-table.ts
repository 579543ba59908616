import type { Scope } from '@acs/auth';
import { ROLE } from '@acs/contracts';

/** The services behind the gateway. */
export const SERVICES = ['identity', 'keys', 'catalog', 'device', 'billing'] as const;
export type ServiceName = (typeof SERVICES)[number];

/** Layer 2: none, any signed-in user, or a user whose *current* effective role is at least `minRole`. */
export type UserRequirement = { kind: 'none' } | { kind: 'user'; minRole: number };

export interface RouteSpec {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** As the spec writes it (case-sensitive); `{name}` marks a path parameter. */
  path: string;
  scope: Scope;
  user: UserRequirement;
  upstream: ServiceName;
  /** Key of the route's OpenAPI description (openapi/operations.ts). */
  operationId: string;
}

const NO_USER: UserRequirement = { kind: 'none' };
const ANY_USER: UserRequirement = { kind: 'user', minRole: ROLE.free };
const atLeast = (minRole: number): UserRequirement => ({ kind: 'user', minRole });

/**
 * Every public endpoint, read like the spec's Endpoints and Scopes tables. `/api/ApiKeys*` and
 * `/api/Subscriptions*` need `system:full-access`: no assignable scope grants them, so only the
 * service's own web application (the account dashboard) can call them, with the user's JWT.
 */
export const ROUTES: readonly RouteSpec[] = [
  { method: 'POST', path: '/api/Users/Login', scope: 'auth:login', user: NO_USER, upstream: 'identity', operationId: 'login' },
  { method: 'POST', path: '/api/Users/Register', scope: 'auth:register', user: NO_USER, upstream: 'identity', operationId: 'register' },
  { method: 'GET', path: '/api/Devices', scope: 'auth:login', user: ANY_USER, upstream: 'device', operationId: 'listDevices' },
  {
    method: 'POST',
    path: '/api/Devices/Register',
    scope: 'register:device',
    user: ANY_USER,
    upstream: 'device',
    operationId: 'registerDevice',
  },
  { method: 'GET', path: '/api/Dac', scope: 'read:devices', user: NO_USER, upstream: 'catalog', operationId: 'listCatalog' },
  {
    method: 'POST',
    path: '/api/Dac/import',
    scope: 'write:devices',
    user: atLeast(ROLE.admin),
    upstream: 'catalog',
    operationId: 'importCatalog',
  },
  { method: 'GET', path: '/api/SubscriptionPlans', scope: 'read:devices', user: NO_USER, upstream: 'billing', operationId: 'listPlans' },
  {
    method: 'POST',
    path: '/api/Subscriptions',
    scope: 'system:full-access',
    user: ANY_USER,
    upstream: 'billing',
    operationId: 'createSubscription',
  },
  // Platform additions: users see and end what they bought (issue 5).
  {
    method: 'GET',
    path: '/api/Subscriptions',
    scope: 'system:full-access',
    user: ANY_USER,
    upstream: 'billing',
    operationId: 'listSubscriptions',
  },
  {
    method: 'DELETE',
    path: '/api/Subscriptions/{id}',
    scope: 'system:full-access',
    user: ANY_USER,
    upstream: 'billing',
    operationId: 'cancelSubscription',
  },
  {
    method: 'GET',
    path: '/api/ApiKeys',
    scope: 'system:full-access',
    user: atLeast(ROLE.subscriber),
    upstream: 'keys',
    operationId: 'listApiKeys',
  },
  {
    method: 'POST',
    path: '/api/ApiKeys',
    scope: 'system:full-access',
    user: atLeast(ROLE.subscriber),
    upstream: 'keys',
    operationId: 'createApiKey',
  },
  // Platform additions: the dashboard's scope change ("an endpoint for it: not shown") and
  // revocation. Changing scopes is managing keys (role >= 1); revoking is always open to the
  // owner, so a user whose subscription lapsed can still stop a leaked key.
  {
    method: 'PATCH',
    path: '/api/ApiKeys/{id}',
    scope: 'system:full-access',
    user: atLeast(ROLE.subscriber),
    upstream: 'keys',
    operationId: 'changeApiKey',
  },
  {
    method: 'DELETE',
    path: '/api/ApiKeys/{id}',
    scope: 'system:full-access',
    user: ANY_USER,
    upstream: 'keys',
    operationId: 'revokeApiKey',
  },
  // Issue 17: a new secret (like PATCH: managing keys needs role >= 1) and the key's daily usage
  // (like DELETE: open to the owner at any role, to see what a key did after a subscription lapsed).
  {
    method: 'POST',
    path: '/api/ApiKeys/{id}/roll',
    scope: 'system:full-access',
    user: atLeast(ROLE.subscriber),
    upstream: 'keys',
    operationId: 'rollApiKey',
  },
  {
    method: 'GET',
    path: '/api/ApiKeys/{id}/usage',
    scope: 'system:full-access',
    user: ANY_USER,
    upstream: 'keys',
    operationId: 'apiKeyUsage',
  },
];
