import type { Scope } from '@acs/auth';
import { z } from 'zod';
import { ROLE } from './roles.js';

/** The services behind the gateway: each operation names the one that owns it. */
export const SERVICES = ['identity', 'keys', 'catalog', 'device', 'billing', 'webhooks'] as const;
export type ServiceName = (typeof SERVICES)[number];

/** Layer 2: none, any signed-in user, or a user whose *current* effective role is at least `minRole`. */
export type UserRequirement = { readonly kind: 'none' } | { readonly kind: 'user'; readonly minRole: number };

export const NO_USER = { kind: 'none' } as const;
export const ANY_USER = { kind: 'user', minRole: ROLE.free } as const;
export const atLeast = <R extends number>(minRole: R) => ({ kind: 'user', minRole }) as const;

/** The largest body of a small JSON form (credentials, an e-mailed token, a one-time code): a sign-in body is a few hundred bytes, so anything near this is not a form; far below the default. */
export const FORM_BODY_LIMIT_BYTES = 8 * 1024;

/*
 * Who may call an operation and who answers it, named once per family of operations that really
 * share them (docs/architecture.md, "Contract presets"). A contract spreads its family's preset
 * right after its path and states only what is its own: `...OWN_ACCOUNT,`. A new operation joins
 * a family only when all of the preset is true of it (the same scope, the same user requirement,
 * the same service, and for the forms the same body limit); otherwise it writes the fields out,
 * as register (auth:register) and the catalog's and devices' operations do. Never override a
 * preset's field after spreading it: pick the family whose fields are all right, or none.
 */

/** Anonymous identity forms, made before the caller has a session (sign in, reset a password, verify an address): the login scope, no user, small bodies. */
export const PUBLIC_IDENTITY_FORM = {
  scope: 'auth:login',
  user: NO_USER,
  upstream: 'identity',
  bodyLimitBytes: FORM_BODY_LIMIT_BYTES,
} as const;

/** The signed-in user's own account at identity (profile, sessions, password, two-factor, audit trail): any role may manage itself. */
export const OWN_ACCOUNT = { scope: 'system:full-access', user: ANY_USER, upstream: 'identity' } as const;

/** A form on the signed-in user's own account (a password, a code): OWN_ACCOUNT with a small body. */
export const OWN_ACCOUNT_FORM = { ...OWN_ACCOUNT, bodyLimitBytes: FORM_BODY_LIMIT_BYTES } as const;

/** What any signed-in user may do to the keys they hold, whatever their role now (revoke a leaked key, read its usage after a downgrade). */
export const OWN_KEYS = { scope: 'system:full-access', user: ANY_USER, upstream: 'keys' } as const;

/** What only a subscriber (or above) may do with keys: list, create, change and roll them. */
export const SUBSCRIBER_KEYS = { scope: 'system:full-access', user: atLeast(ROLE.subscriber), upstream: 'keys' } as const;

/** The signed-in user's own webhook endpoints and their deliveries: any role (a downgraded user still manages and reads them). */
export const OWN_WEBHOOKS = { scope: 'system:full-access', user: ANY_USER, upstream: 'webhooks' } as const;

/** The signed-in user's own subscriptions at billing: any role (a free user subscribes; a lapsed one lists and cancels). */
export const OWN_SUBSCRIPTIONS = { scope: 'system:full-access', user: ANY_USER, upstream: 'billing' } as const;

export interface QueryParameterDoc {
  name: string;
  description: string;
  schema: Record<string, unknown>;
}

/** A `{name}` segment of the operation's path; every one the path has must be described. */
export interface PathParameterDoc {
  description: string;
  schema: Record<string, unknown>;
}

/** A request header a client may send to this operation (beyond the authentication headers); validated by the service with `schema`. */
export interface HeaderParameterDoc {
  name: string;
  description: string;
  schema: z.ZodType;
}

export interface SuccessDoc {
  status: number;
  description: string;
  schema?: z.ZodType;
  /** Also answered as text/csv (when asked for: `format=csv`, `Accept: text/csv`), described in the document. */
  csv?: string;
  /** Response headers beyond X-Request-Id (which every answer carries). */
  headers?: Record<string, { description: string; schema: Record<string, unknown> }>;
}

/** How the service reads the body: parsed with `requestBody` (`optional`: an empty body parses as `{}`), or by the handler itself (`own`, a stream). */
export type BodyReading = 'json' | 'optional-json' | 'own';

/**
 * One public operation, whole (docs/architecture.md, decision 11): who may call it, who answers
 * it, what it reads and what it answers. The gateway's route table, the served OpenAPI document
 * and the service's router are built from it; nothing else names its path, scope or role.
 */
export interface Endpoint {
  operationId: string;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** As the contract writes it (case-sensitive); `{name}` marks a path parameter. */
  path: string;
  scope: Scope;
  user: UserRequirement;
  upstream: ServiceName;
  summary: string;
  description: string;
  /** The query as the service parses it (unknown parameters and bad values are 400), and as the document describes it. */
  query?: { schema: z.ZodType; parameters: QueryParameterDoc[] };
  pathParameters?: Record<string, PathParameterDoc>;
  headers?: HeaderParameterDoc[];
  requestBody?: z.ZodType;
  /** Defaults to `json` when there is a requestBody. */
  bodyReading?: BodyReading;
  /** The largest body the service reads for this operation (413 beyond); the service's default when unset. */
  bodyLimitBytes?: number;
  /** Success status and body; the error statuses common to every operation are added by the document's builder. */
  success: SuccessDoc;
  /** Other success answers of the same operation (an idempotent repeat answering 200, for instance). */
  alsoSucceeds?: SuccessDoc[];
  /** The operation's own error statuses beyond the common ones. */
  errors?: Record<number, string>;
}

/** Ids of keys and subscriptions are UUIDs; any other value (or someone else's id) answers 404. */
const uuidPathParameter = (what: string): PathParameterDoc => ({
  description: `id of the ${what} (a UUID; any other value, or the id of someone else's ${what}, answers 404)`,
  schema: { type: 'string', format: 'uuid' },
});

/**
 * The parts every operation on one of the caller's own records by `{id}` shares (a key, a
 * subscription): the id as a UUID path parameter and the 404 for an id that is unknown or someone
 * else's (never told apart, so ids cannot be probed). Spread it into the contract with the
 * operation's other errors: `...ownRecord('key', { 409: 'The key is revoked' })`.
 */
export const ownRecord = <const E extends Record<number, string>>(record: string, errors?: E) => ({
  pathParameters: { id: uuidPathParameter(record) },
  errors: { 404: `No such ${record} of this user`, ...errors } as { 404: string } & E,
});

/**
 * The body of a POST that carries nothing (the caller and the path say it all: end my other
 * sessions, send me a new link): no body, or `{}`; any field is 400.
 */
export const NO_FIELDS_BODY = { requestBody: z.object({}).strict(), bodyReading: 'optional-json' } as const;
