import { type Endpoint, ownRecord, SUBSCRIBER_KEYS } from '../endpoint.js';
import { apiKeyRollRequestSchema, apiKeyRolledResponseSchema } from '../api-keys.js';

export const rollApiKeyEndpoint = {
  operationId: 'rollApiKey',
  method: 'POST',
  path: '/api/ApiKeys/{id}/roll',
  ...SUBSCRIBER_KEYS,
  summary: 'Give a key a new secret without downtime (account dashboard)',
  description:
    "Needs system:full-access and the owner's JWT with role >= 1. Answers the key with its new secret, shown this once. The previous " +
    'secret keeps working for graceSeconds (0..604800, default 86400; graceEndsAt says until when), then answers 401; ' +
    'graceSeconds 0 stops it at once (a leaked secret). Rolling again during a grace period ends the older secret at once. ' +
    "Someone else's key, or an unknown id, gives 404; a revoked or expired key 409. The body is optional.",
  ...ownRecord('key', { 400: 'graceSeconds not a whole number in 0..604800', 409: 'The key is revoked or expired' }),
  requestBody: apiKeyRollRequestSchema,
  bodyReading: 'optional-json',
  success: { status: 200, description: 'The key and its new secret; the secret is shown this once', schema: apiKeyRolledResponseSchema },
} satisfies Endpoint;
