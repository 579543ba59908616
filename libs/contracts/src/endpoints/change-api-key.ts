import { type Endpoint, ownRecord, SUBSCRIBER_KEYS } from '../endpoint.js';
import { apiKeyChangeRequestSchema, apiKeyViewSchema } from '../api-keys.js';

export const changeApiKeyEndpoint = {
  operationId: 'changeApiKey',
  method: 'PATCH',
  path: '/api/ApiKeys/{id}',
  ...SUBSCRIBER_KEYS,
  summary: "Change a key's scopes, name, rate limits or IP allow-list (account dashboard)",
  description:
    "Needs system:full-access and the owner's JWT with role >= 1. The new scopes, limits and ipAllowList apply from the next request made with the key, on every gateway replica. " +
    'ipAllowList: up to 100 IPv4 or IPv6 CIDR ranges the key may be used from (403 ip_not_allowed from elsewhere); null: any address again. ' +
    "Someone else's key, or an unknown id, gives 404. A revoked key cannot be changed (409).",
  ...ownRecord('key', {
    400: 'Invalid body, unknown or reserved scope, an ipAllowList entry that is not a CIDR range',
    409: 'The key is revoked',
  }),
  requestBody: apiKeyChangeRequestSchema,
  success: { status: 200, description: 'The changed key', schema: apiKeyViewSchema },
} satisfies Endpoint;
