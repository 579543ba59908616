import { ANY_USER, type Endpoint, ownRecord } from '../endpoint.js';
import { apiKeyUsageQuerySchema, apiKeyUsageResponseSchema } from '../api-keys.js';

export const apiKeyUsageEndpoint = {
  operationId: 'apiKeyUsage',
  method: 'GET',
  path: '/api/ApiKeys/{id}/usage',
  scope: 'system:full-access',
  user: ANY_USER,
  upstream: 'keys',
  summary: "A key's requests per UTC day and status class (account dashboard)",
  description:
    "Needs system:full-access and the owner's JWT (any role). The last `days` UTC days, today included, oldest first; days without " +
    'traffic appear with zeros. byStatus counts 2xx, 3xx, 4xx (429 excepted), 429 and 5xx answers. Gateways send counts in batches ' +
    "(KEY_USAGE_FLUSH_MS, 10 s by default), so the newest requests may be missing for that long. Someone else's key gives 404.",
  ...ownRecord('key', { 400: 'days not a whole number in 1..90' }),
  query: {
    schema: apiKeyUsageQuerySchema,
    parameters: [
      {
        name: 'days',
        description: 'how many days back, 1-90 (default 30)',
        schema: { type: 'integer', minimum: 1, maximum: 90, default: 30 },
      },
    ],
  },
  success: { status: 200, description: 'Daily counts', schema: apiKeyUsageResponseSchema },
} satisfies Endpoint;
