import { type Endpoint, SUBSCRIBER_KEYS } from '../endpoint.js';
import { apiKeyCreateRequestSchema, apiKeyCreatedResponseSchema } from '../api-keys.js';

export const createApiKeyEndpoint = {
  operationId: 'createApiKey',
  method: 'POST',
  path: '/api/ApiKeys',
  ...SUBSCRIBER_KEYS,
  summary: 'Create an API key for the signed-in user',
  description:
    "Needs system:full-access and the user's JWT with a current effective role >= 1 (403 without an active subscription or trial). " +
    'scopes: names from auth:login auth:register register:device read:devices write:devices, separated by spaces; repeated names collapse; ' +
    'unknown names and system:full-access give 400 and nothing is created. A user has at most KEYS_PER_USER (default 25) active keys: 409 beyond. ' +
    'expiresAt (optional): from that instant the key answers 401 on every gateway replica; in the future and, when the deployment sets ' +
    'KEY_MAX_LIFETIME_DAYS, at most that many days ahead (400 otherwise). ' +
    'ipAllowList (optional): up to 100 IPv4 or IPv6 CIDR ranges the key may be used from (403 ip_not_allowed from elsewhere); absent or null: any address. ' +
    'The secret reads <prefix>_<live|test>_<30 base62><6 base62 CRC32> (docs/key-format.md).',
  requestBody: apiKeyCreateRequestSchema,
  success: { status: 201, description: 'The key and its secret; the secret is shown this once', schema: apiKeyCreatedResponseSchema },
  errors: {
    400: 'Invalid body, unknown or reserved scope, expiresAt not in the future or beyond KEY_MAX_LIFETIME_DAYS, an ipAllowList entry that is not a CIDR range',
    409: 'Key limit reached',
  },
} satisfies Endpoint;
