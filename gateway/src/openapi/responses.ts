import { SPEC_ERRORS } from '@acs/errors';
import type { RouteSpec } from '../routing/route-table.js';
import { isIdempotentWriteMethod, type Endpoint } from '@acs/contracts';

/** The one error shape (docs/architecture.md, decision 5). */
export const ERROR_SCHEMA = {
  type: 'object',
  required: ['error', 'message', 'code'],
  properties: {
    error: { type: 'string', description: "short title (the spec's exact words for its 401 and 403s)" },
    message: { type: 'string', description: "explanation (the spec's exact words for its 401 and 403s)" },
    code: {
      type: 'string',
      description:
        'stable machine-readable reason to switch on, e.g. missing_credentials, invalid_credentials, missing_scope, ip_not_allowed, token_required, role_too_low, subscription_required, rate_limited, validation_failed, not_found (docs/errors.md lists them)',
    },
    hint: { type: 'string', description: 'what a person can do about it, when there is something to say' },
    requestId: { type: 'string', description: 'the X-Request-Id of the request' },
    details: {
      type: 'array',
      description: 'validation problems',
      items: { type: 'object', required: ['path', 'message'], properties: { path: { type: 'string' }, message: { type: 'string' } } },
    },
  },
};

/** Response headers shared by many answers (components.headers). */
export const RESPONSE_HEADERS = {
  'X-Request-Id': {
    description:
      'The request id: taken from the request when it is 1-128 of A-Z a-z 0-9 . _ : -, otherwise generated. Sent on every answer.',
    required: true,
    schema: { type: 'string' },
  },
  'Retry-After': {
    description: 'Seconds to wait before trying again',
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  // Rate limits per API key (issue 16) and plan quotas (issue 29): draft-ietf-httpapi-ratelimit-headers-11, on every
  // answer to a limited key or a key whose owner has a quota.
  'RateLimit-Policy': {
    description:
      'The key\'s rate-limit windows, then its owner\'s plan quota, e.g. "1s";q=20;w=1, "1d";q=50000;w=86400, "quota-month";q=100000;w=2592000 ' +
      '(only for a rate-limited key or an owner with a quota; quota items: "quota-day" and "quota-month", UTC calendar periods)',
    schema: { type: 'string' },
  },
  'Idempotent-Replayed': {
    description: 'true when this answer replays the first one for the same Idempotency-Key (absent otherwise)',
    schema: { type: 'string', enum: ['true'] },
  },
  RateLimit: {
    description:
      'The window with the least room, then the quota period with the least room: "1s";r=<remaining>;t=<seconds until the window ends>, ' +
      '"quota-month";r=<remaining>;t=<seconds until the period resets>; on a 429, t of the refusing item is its Retry-After',
    schema: { type: 'string' },
  },
};

const headerRef = (name: keyof typeof RESPONSE_HEADERS) => ({ $ref: `#/components/headers/${name}` });
const REQUEST_ID_HEADER = { 'X-Request-Id': headerRef('X-Request-Id') };
const RATE_LIMIT_HEADERS = { 'RateLimit-Policy': headerRef('RateLimit-Policy'), RateLimit: headerRef('RateLimit') };

/** Statuses whose answer may (503) or always does (429) carry Retry-After. */
const RETRY_AFTER_STATUSES = new Set([429, 503]);

type ErrorExample = { error: string; message: string; code: string };

function errorResponse(status: number, description: string, example?: ErrorExample): Record<string, unknown> {
  return {
    description,
    headers: {
      ...REQUEST_ID_HEADER,
      ...(RETRY_AFTER_STATUSES.has(status) ? { 'Retry-After': headerRef('Retry-After') } : {}),
      ...(status === 429 ? RATE_LIMIT_HEADERS : {}),
    },
    content: {
      'application/json': {
        schema: { $ref: '#/components/schemas/Error' },
        ...(example ? { example: { error: example.error, message: example.message, code: example.code } } : {}),
      },
    },
  };
}

export function successHeaders(
  extra: Record<string, { description: string; schema: Record<string, unknown> }> = {},
  idempotent = false,
): Record<string, unknown> {
  return {
    ...REQUEST_ID_HEADER,
    ...RATE_LIMIT_HEADERS,
    ...(idempotent ? { 'Idempotent-Replayed': headerRef('Idempotent-Replayed') } : {}),
    ...extra,
  };
}

/** The gateway's own answers to an Idempotency-Key (issue 31), joined to the operation's own 409 and 422. */
const IDEMPOTENCY_ERRORS: Record<409 | 422, string> = {
  409: 'A request with the same Idempotency-Key is still running (code idempotency_request_in_progress)',
  422: 'The Idempotency-Key was already used with another request body (code idempotency_key_reused)',
};

function addIdempotencyErrors(descriptions: Record<number, string>): void {
  for (const status of [409, 422] as const) {
    const own = descriptions[status];
    descriptions[status] = own ? `${own}; or: ${IDEMPOTENCY_ERRORS[status]}` : IDEMPOTENCY_ERRORS[status];
  }
}

/**
 * Every error status the system can answer for this operation, with a description: those any
 * request can meet (node:http before the gateway runs, layer 1, the gateway's checks, the
 * upstream call), those that follow from the route (user requirement, body, path parameters),
 * and the operation's own (the contract's errors, which also override the generic descriptions).
 */
export function errorResponses(route: RouteSpec, doc: Endpoint): Record<number, Record<string, unknown>> {
  const needsUser = route.user.kind === 'user';
  const hasBody = doc.requestBody !== undefined;
  const descriptions: Record<number, string> = {
    400: hasBody
      ? 'Missing or invalid JSON body'
      : doc.query
        ? 'Invalid query parameter'
        : 'Malformed request (a request line or header that cannot be parsed)',
    401: 'API key or secret missing or invalid (also a secret of the current format with a wrong checksum)',
    403: needsUser
      ? "Scope missing, user JWT missing, invalid or with too low a role, or the client's address outside the key's ipAllowList (code ip_not_allowed)"
      : "The key lacks the required scope, or the client's address is outside the key's ipAllowList (code ip_not_allowed)",
    404: doc.pathParameters ? 'No such resource' : 'Unknown route',
    405: 'Method not supported on this path',
    408: 'The request did not arrive in time',
    413: 'Request body too large',
    417: 'An Expect header other than 100-continue',
    429: "The API key's rate limit is reached (code rate_limited), or its owner's plan quota is spent (code quota_exceeded; the hint names the plan and the reset, UTC); see Retry-After",
    431: 'Request headers too large',
    500: 'Unexpected failure (a defect); the body never holds internals',
    502: 'The owning service failed',
    503: 'The owning service (or a store it needs) is unreachable or not deployed; may carry Retry-After',
    504: 'The owning service did not answer in time',
  };
  if (hasBody) descriptions[415] = 'The body is not application/json';
  // An operation's own 429 (sign-in throttling, registration limits) comes on top of the key's rate limit.
  const own429 = doc.errors?.[429];
  Object.assign(descriptions, doc.errors ?? {});
  if (own429)
    descriptions[429] = `${own429}; or the API key's rate limit is reached (rate_limited) or its owner's plan quota spent (quota_exceeded)`;
  if (isIdempotentWriteMethod(route.method)) addIdempotencyErrors(descriptions);
  const examples: Record<number, ErrorExample> = {
    401: { ...SPEC_ERRORS.missingApiKey, code: 'invalid_credentials' },
    403: { ...SPEC_ERRORS.insufficientScope, code: 'missing_scope' },
  };
  const responses: Record<number, Record<string, unknown>> = {};
  for (const [status, description] of Object.entries(descriptions))
    responses[Number(status)] = errorResponse(Number(status), description, examples[Number(status)]);
  return responses;
}

/** The answers of an operation outside the route table (the leak report), from its own statuses. */
export function ownErrorResponses(descriptions: Record<number, string>): Record<number, Record<string, unknown>> {
  const responses: Record<number, Record<string, unknown>> = {};
  for (const [status, description] of Object.entries(descriptions)) responses[Number(status)] = errorResponse(Number(status), description);
  return responses;
}
