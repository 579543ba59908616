import { type Endpoint, ownRecord, OWN_KEYS } from '../endpoint.js';
import { apiKeyViewSchema } from '../api-keys.js';

export const revokeApiKeyEndpoint = {
  operationId: 'revokeApiKey',
  method: 'DELETE',
  path: '/api/ApiKeys/{id}',
  ...OWN_KEYS,
  summary: 'Revoke a key (account dashboard)',
  description:
    "Needs system:full-access and the owner's JWT (any role, so a lapsed subscriber can still stop a leaked key). The key stops working on " +
    "the next request; the record is kept and listed with revokedAt. Revoking twice answers the same. Someone else's key gives 404.",
  ...ownRecord('key'),
  success: { status: 200, description: 'The revoked key', schema: apiKeyViewSchema },
} satisfies Endpoint;
