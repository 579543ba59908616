/**
 * Idempotent writes (issue 31): the gateway keeps the answer to a POST or PATCH that carried an
 * Idempotency-Key for 24 h and replays it for a retry (docs/api-contract.md, "Idempotent writes").
 * The header's name and its schema are billing's, which had it first (billing.ts).
 */
/** On a replayed answer (Stripe's name); billing's own replay sends it too. */
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';

/** How long a finished answer is kept for replays. */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;

/** The largest answer body kept; a larger answer is not stored (a retry runs again). */
export const IDEMPOTENCY_MAX_STORED_BYTES = 64 * 1024;

/** The methods whose requests the gateway makes idempotent; the header is ignored on the others (they are idempotent already). */
export const isIdempotentWriteMethod = (method: string): boolean => method === 'POST' || method === 'PATCH';

/**
 * `idempotency:{<key id>}:<scope hash>`: the braces are a Redis Cluster hash tag on the API key's id,
 * so one key's records share a slot like its limiter counters; the scope hash covers the user, the
 * method, the path and the client's Idempotency-Key (never stored in clear: it may be anything).
 */
export const idempotencyCacheKey = (keyId: string, scopeHash: string): string => `idempotency:{${keyId}}:${scopeHash}`;

/** The OpenAPI description of the header, declared once for every POST and PATCH (gateway/src/openapi). */
export const IDEMPOTENCY_KEY_DESCRIPTION =
  'Optional, 1-255 visible ASCII characters (400 otherwise). The first answer (below 500, body up to 64 KiB) to this key, ' +
  'for this API key, user, method and path, is kept 24 h: a retry with the same body gets it again with Idempotent-Replayed: true; ' +
  'with another body 422 (idempotency_key_reused); while the first is still running 409 (idempotency_request_in_progress).';
