import { z } from 'zod';
import {
  CATALOG_CURSOR_MAX_LENGTH,
  CATALOG_MAX_SEARCH_LENGTH,
  CATALOG_TYPES,
  CATALOG_DEFAULT_PAGE_SIZE,
  CATALOG_MAX_PAGE,
  IDEMPOTENCY_KEY_HEADER,
  idempotencyKeySchema,
  CATALOG_MAX_PAGE_SIZE,
  apiKeyChangeRequestSchema,
  apiKeyCreateRequestSchema,
  apiKeyCreatedResponseSchema,
  apiKeyListResponseSchema,
  apiKeyRollRequestSchema,
  apiKeyRolledResponseSchema,
  apiKeyUsageResponseSchema,
  apiKeyViewSchema,
  catalogEntryInputSchema,
  subscriptionCreateRequestSchema,
  subscriptionListResponseSchema,
  subscriptionPlanListResponseSchema,
  subscriptionViewSchema,
  deviceListResponseSchema,
  deviceRegisterRequestSchema,
  deviceSchema,
  catalogPageSchema,
  loginRequestSchema,
  loginResponseSchema,
  registerRequestSchema,
  registerResponseSchema,
} from '@acs/contracts';

export interface QueryParameterDoc {
  name: string;
  description: string;
  schema: Record<string, unknown>;
}

/** A `{name}` segment of the route's path; every one the path has must be described. */
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
  /** Response headers beyond X-Request-Id (which every answer carries). */
  headers?: Record<string, { description: string; schema: Record<string, unknown> }>;
}

export interface OperationDoc {
  summary: string;
  description: string;
  query?: QueryParameterDoc[];
  path?: Record<string, PathParameterDoc>;
  headers?: HeaderParameterDoc[];
  requestBody?: z.ZodType;
  /** Success status and body; the error statuses are added from the route's requirements. */
  success: SuccessDoc;
  /** Other success answers of the same operation (an idempotent repeat answering 200, for instance). */
  alsoSucceeds?: SuccessDoc[];
  /** Route-specific error statuses beyond the common ones. */
  errors?: Record<number, string>;
}

/** Ids of keys and subscriptions are UUIDs; any other value (or someone else's id) answers 404. */
const uuidPathParameter = (what: string): PathParameterDoc => ({
  description: `id of the ${what} (a UUID; any other value, or the id of someone else's ${what}, answers 404)`,
  schema: { type: 'string', format: 'uuid' },
});

const CATALOG_CACHE_HEADERS: Record<string, { description: string; schema: Record<string, unknown> }> = {
  ETag: { description: 'The catalog version and the query: changes exactly when the answer would', schema: { type: 'string' } },
  'Cache-Control': { description: 'private, max-age=<CATALOG_MAX_AGE_SECONDS, default 60>', schema: { type: 'string' } },
};

const importRequestSchema = z.union([z.array(catalogEntryInputSchema), z.object({ items: z.array(catalogEntryInputSchema) })]);
const importResultSchema = z.object({ inserted: z.number().int(), updated: z.number().int(), total: z.number().int() });

/**
 * The OpenAPI text of each route in the route table, keyed by operationId. Shapes come from the
 * same zod schemas the services validate with, so the document cannot drift from the code.
 */
export const OPERATIONS: Record<string, OperationDoc> = {
  login: {
    summary: 'Sign a user in',
    description:
      'Returns a signed JWT (EdDSA, kid in the header, issuer acs-identity, audience acs-api, lifetime JWT_TTL_SECONDS, default 1 h) and the user ' +
      'with the effective role. A wrong password and an unknown e-mail give the same 401. Within 15 minutes, after 5 failures for an account from one ' +
      'address (that address), 30 from one address (every account), or 50 for an account from all addresses (addresses it has not signed in from): ' +
      '429 with Retry-After, the same answer for every limit and for unknown e-mails. Public keys: GET /.well-known/jwks.json.',
    requestBody: loginRequestSchema,
    success: { status: 200, description: 'Signed in', schema: loginResponseSchema },
    errors: { 400: 'Invalid body', 429: 'Too many failed attempts; see Retry-After' },
  },
  register: {
    summary: 'Create a user account',
    description:
      'All four fields are required; unknown fields (a role, for instance) are ignored and change nothing. The e-mail is unique regardless of case (409). ' +
      'Password: 12 characters to 72 bytes in UTF-8, not a common or repetitive password, not containing the e-mail local part; no composition rules. ' +
      'A new account starts a trial of TRIAL_DURATION_SECONDS (14 days by default): role 1 until it ends. At most 20 registrations per client ' +
      'address an hour (429 with Retry-After); a taken e-mail is answered 409 without creating anything.',
    requestBody: registerRequestSchema,
    success: { status: 201, description: 'Account created', schema: registerResponseSchema },
    errors: {
      400: 'Invalid body or password outside the policy',
      409: 'E-mail already registered: sign in with it, or use another address',
      429: 'Too many registrations from this address; see Retry-After',
    },
  },
  listDevices: {
    summary: "List the signed-in user's devices",
    description:
      "The caller's newest 500 devices, newest first, each with a short summary of its catalog entry. When the catalog cannot be reached " +
      "the devices still come back, with catalogEntry null and catalogUnavailable true. Nobody sees another user's devices.",
    success: { status: 200, description: 'The devices', schema: deviceListResponseSchema },
  },
  registerDevice: {
    summary: 'Register a device to the signed-in user',
    description:
      'serialNumber: 1-64 of A-Z a-z 0-9 . _ : - (case-sensitive). Unknown fields give 400. The same serial registered again by the same user ' +
      'answers 200 with the device (firmware retries are safe; name, and catalogEntryId/firmwareVersion when sent, are updated). A serial ' +
      'registered to another account gives 409. An unknown catalogEntryId gives 422; it is checked against the catalog service at once ' +
      '(503 with Retry-After when the catalog cannot be reached, nothing written).',
    requestBody: deviceRegisterRequestSchema,
    success: { status: 201, description: 'Device registered', schema: deviceSchema },
    alsoSucceeds: [
      {
        status: 200,
        description: 'The serial was already registered to this user: the device, updated (an idempotent repeat)',
        schema: deviceSchema,
      },
    ],
    errors: { 400: 'Invalid body', 409: 'Serial registered to another account', 422: 'Unknown catalog entry' },
  },
  listCatalog: {
    summary: 'List catalog entries (DACs, amplifiers, speakers)',
    description:
      `Ordered by id (stable across pages). \`brand\` matches the whole brand name, ignoring case. ` +
      `page defaults to 1 (at most ${CATALOG_MAX_PAGE}); pageSize defaults to ${CATALOG_DEFAULT_PAGE_SIZE}, at most ${CATALOG_MAX_PAGE_SIZE}. ` +
      'Unknown parameters and invalid values give 400. A page past the end answers an empty `items` list. ' +
      'Every answer carries `nextCursor`: pass it as `cursor` (instead of `page`) for the entries after it; null on the last page. ' +
      'A cursor answer costs the same however far in, keeps the filters the cursor was made with (a different `brand` gives 400) and has `page` null. ' +
      'Deep `page` requests (many skipped rows) are served a few at a time, so they never slow down other requests; prefer the cursor. ' +
      '`type` and `q` (search) combine with `brand` and with both ways of paging; a search is served a few at a time like deep pages. ' +
      'Answers carry an ETag (the catalog version and the query) and Cache-Control; If-None-Match with the current tag gives 304 with no body.',
    headers: [
      {
        name: 'If-None-Match',
        description: 'An ETag of an earlier answer (or a list, or *): 304 when it is still current',
        schema: z.string(),
      },
    ],
    query: [
      { name: 'brand', description: 'Brand name, case-insensitive exact match', schema: { type: 'string', minLength: 1, maxLength: 80 } },
      { name: 'type', description: 'Only entries of this type', schema: { type: 'string', enum: [...CATALOG_TYPES] } },
      {
        name: 'q',
        description: 'Search: a case-insensitive substring (or prefix) of "<brand> <model>"; %, _ and \\ match themselves',
        schema: { type: 'string', minLength: 1, maxLength: CATALOG_MAX_SEARCH_LENGTH },
      },
      {
        name: 'cursor',
        description: 'The nextCursor of an earlier answer (opaque); replaces page, so not both. Carries the filters (brand, type, q)',
        schema: { type: 'string', pattern: '^[A-Za-z0-9_-]+$', maxLength: CATALOG_CURSOR_MAX_LENGTH },
      },
      { name: 'page', description: 'Page number, from 1', schema: { type: 'integer', minimum: 1, maximum: CATALOG_MAX_PAGE, default: 1 } },
      {
        name: 'pageSize',
        description: 'Entries per page',
        schema: { type: 'integer', minimum: 1, maximum: CATALOG_MAX_PAGE_SIZE, default: CATALOG_DEFAULT_PAGE_SIZE },
      },
    ],
    success: { status: 200, description: 'One page of entries', schema: catalogPageSchema, headers: CATALOG_CACHE_HEADERS },
    alsoSucceeds: [{ status: 304, description: 'Not modified: the If-None-Match tag is current; no body', headers: CATALOG_CACHE_HEADERS }],
    errors: { 400: 'Invalid query parameter, or a cursor made for other filters' },
  },
  importCatalog: {
    summary: 'Import catalog entries (Admin)',
    description:
      'Admin only: scope write:devices and a user JWT with role >= 2. Body: a JSON array of entries, or {"items": [...]}, in the catalog entry ' +
      'shape (strict; currency defaults to USD). Every row is validated before anything is written; if any row is invalid the answer is 400 with ' +
      'details [{path: "items[<index>].<field>", message}] (at most 100; the message gives the total) and nothing is written. The same product ' +
      '(type, brand and model, ignoring case) twice in one request is a 400 naming both indexes. A valid request upserts by (type, brand, model, ' +
      'ignoring case) in one transaction and answers 200 {inserted, updated, total}. ?dryRun=true validates and answers the same counts without ' +
      'writing; any other query parameter is a 400. Limits: 16 MiB body and 20,000 entries per request, 413 beyond either (split larger files; ' +
      '`npm run catalog -- import` does). Imports are visible in GET /api/Dac at once, through every catalog instance (with a read replica, ' +
      'an instance reads the primary until the replica has replayed every version it heard of).',
    query: [{ name: 'dryRun', description: 'true: validate and count, write nothing', schema: { type: 'boolean', default: false } }],
    requestBody: importRequestSchema,
    success: { status: 200, description: 'Import summary', schema: importResultSchema },
    errors: { 400: 'Invalid rows (nothing written)', 413: 'Body over 16 MiB or more than 20,000 entries' },
  },
  listPlans: {
    summary: 'List subscription plans',
    description: 'Free (planType 0), Monthly (1), Yearly (2), Lifetime (3), with price, currency and billing interval.',
    success: { status: 200, description: 'The plans', schema: subscriptionPlanListResponseSchema },
  },
  createSubscription: {
    summary: 'Subscribe the signed-in user to a plan',
    description:
      "Needs system:full-access (only the service's own web application holds it) and the user's JWT. One active subscription per user: " +
      'subscribing to another plan while active ends the current one now and starts the new period now (no proration); the same plan again ' +
      'while active gives 409. The Free plan gives 400, an unknown plan 404. Idempotency-Key header: the same key and body replay the first ' +
      'answer (Idempotent-Replayed: true); the same key with another body gives 422. There is no payment provider yet: activation is ' +
      'immediate (the payment seam approves everything). The role becomes Subscriber on the next request; plan_type shows at the next login.',
    headers: [
      {
        name: IDEMPOTENCY_KEY_HEADER,
        description: 'Optional: the same key with the same body replays the first answer; with another body it gives 422',
        schema: idempotencyKeySchema,
      },
    ],
    requestBody: subscriptionCreateRequestSchema,
    success: {
      status: 201,
      description: 'The subscription',
      schema: subscriptionViewSchema,
      headers: {
        'Idempotent-Replayed': {
          description: 'true when this answer replays the first one for the same Idempotency-Key',
          schema: { type: 'string', enum: ['true'] },
        },
      },
    },
    errors: {
      400: 'Invalid body, Idempotency-Key or the Free plan',
      404: 'No such plan',
      409: 'Already subscribed to this plan',
      422: 'Idempotency-Key reused with another body',
    },
  },
  listSubscriptions: {
    summary: "List the signed-in user's subscriptions",
    description:
      "Newest first. status: active, expired (period over), replaced (by another plan) or canceled. Needs system:full-access and the user's JWT.",
    success: { status: 200, description: 'The subscriptions', schema: subscriptionListResponseSchema },
  },
  cancelSubscription: {
    summary: 'Cancel a subscription at the end of its period',
    description:
      'Sets cancelAtPeriodEnd; the status and the Subscriber role stay until the period ends (a Lifetime subscription ends at once). ' +
      "Cancelling twice answers the same. Someone else's or an unknown id gives 404; an ended subscription 409.",
    path: { id: uuidPathParameter('subscription') },
    success: { status: 200, description: 'The subscription', schema: subscriptionViewSchema },
    errors: { 404: 'No such subscription of this user', 409: 'The subscription has already ended' },
  },
  listApiKeys: {
    summary: "List the signed-in user's API keys",
    description:
      'Newest first, revoked keys included (with revokedAt). Never a secret or a hash. Needs system:full-access (only the account dashboard holds it) ' +
      "and the user's JWT with a current effective role >= 1 (an active subscription or trial); otherwise 403.",
    success: { status: 200, description: 'The keys', schema: apiKeyListResponseSchema },
  },
  createApiKey: {
    summary: 'Create an API key for the signed-in user',
    description:
      "Needs system:full-access and the user's JWT with a current effective role >= 1 (403 without an active subscription or trial). " +
      'scopes: names from auth:login auth:register register:device read:devices write:devices, separated by spaces; repeated names collapse; ' +
      'unknown names and system:full-access give 400 and nothing is created. A user has at most KEYS_PER_USER (default 25) active keys: 409 beyond. ' +
      'expiresAt (optional): from that instant the key answers 401 on every gateway replica; in the future and, when the deployment sets ' +
      'KEY_MAX_LIFETIME_DAYS, at most that many days ahead (400 otherwise).',
    requestBody: apiKeyCreateRequestSchema,
    success: { status: 201, description: 'The key and its secret; the secret is shown this once', schema: apiKeyCreatedResponseSchema },
    errors: {
      400: 'Invalid body, unknown or reserved scope, expiresAt not in the future or beyond KEY_MAX_LIFETIME_DAYS',
      409: 'Key limit reached',
    },
  },
  changeApiKey: {
    summary: "Change a key's scopes or name (account dashboard)",
    description:
      "Needs system:full-access and the owner's JWT with role >= 1. The new scopes apply from the next request made with the key. " +
      "Someone else's key, or an unknown id, gives 404. A revoked key cannot be changed (409).",
    path: { id: uuidPathParameter('key') },
    requestBody: apiKeyChangeRequestSchema,
    success: { status: 200, description: 'The changed key', schema: apiKeyViewSchema },
    errors: { 400: 'Invalid body, unknown or reserved scope', 404: 'No such key of this user', 409: 'The key is revoked' },
  },
  revokeApiKey: {
    summary: 'Revoke a key (account dashboard)',
    description:
      "Needs system:full-access and the owner's JWT (any role, so a lapsed subscriber can still stop a leaked key). The key stops working on " +
      "the next request; the record is kept and listed with revokedAt. Revoking twice answers the same. Someone else's key gives 404.",
    path: { id: uuidPathParameter('key') },
    success: { status: 200, description: 'The revoked key', schema: apiKeyViewSchema },
    errors: { 404: 'No such key of this user' },
  },
  rollApiKey: {
    summary: 'Give a key a new secret without downtime (account dashboard)',
    description:
      "Needs system:full-access and the owner's JWT with role >= 1. Answers the key with its new secret, shown this once. The previous " +
      'secret keeps working for graceSeconds (0..604800, default 86400; graceEndsAt says until when), then answers 401; ' +
      'graceSeconds 0 stops it at once (a leaked secret). Rolling again during a grace period ends the older secret at once. ' +
      "Someone else's key, or an unknown id, gives 404; a revoked or expired key 409. The body is optional.",
    path: { id: uuidPathParameter('key') },
    requestBody: apiKeyRollRequestSchema,
    success: { status: 200, description: 'The key and its new secret; the secret is shown this once', schema: apiKeyRolledResponseSchema },
    errors: { 400: 'graceSeconds not a whole number in 0..604800', 404: 'No such key of this user', 409: 'The key is revoked or expired' },
  },
  apiKeyUsage: {
    summary: "A key's requests per UTC day and status class (account dashboard)",
    description:
      "Needs system:full-access and the owner's JWT (any role). The last `days` UTC days, today included, oldest first; days without " +
      'traffic appear with zeros. byStatus counts 2xx, 3xx, 4xx (429 excepted), 429 and 5xx answers. Gateways send counts in batches ' +
      "(KEY_USAGE_FLUSH_MS, 10 s by default), so the newest requests may be missing for that long. Someone else's key gives 404.",
    path: { id: uuidPathParameter('key') },
    query: [
      {
        name: 'days',
        description: 'how many days back, 1-90 (default 30)',
        schema: { type: 'integer', minimum: 1, maximum: 90, default: 30 },
      },
    ],
    success: { status: 200, description: 'Daily counts', schema: apiKeyUsageResponseSchema },
    errors: { 400: 'days not a whole number in 1..90', 404: 'No such key of this user' },
  },
};
