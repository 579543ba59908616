import { type Endpoint, SUBSCRIBER_KEYS } from '../endpoint.js';
import { apiKeyListResponseSchema } from '../api-keys.js';

export const listApiKeysEndpoint = {
  operationId: 'listApiKeys',
  method: 'GET',
  path: '/api/ApiKeys',
  ...SUBSCRIBER_KEYS,
  summary: "List the signed-in user's API keys",
  description:
    'Newest first, revoked keys included (with revokedAt). Never a secret or a hash. Needs system:full-access (only the account dashboard holds it) ' +
    "and the user's JWT with a current effective role >= 1 (an active subscription or trial); otherwise 403.",
  success: { status: 200, description: 'The keys', schema: apiKeyListResponseSchema },
} satisfies Endpoint;
