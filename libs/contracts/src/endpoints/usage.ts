import { type Endpoint, OWN_KEYS } from '../endpoint.js';
import { usageQuerySchema, usageResponseSchema } from '../api-keys.js';

export const usageEndpoint = {
  operationId: 'usage',
  method: 'GET',
  path: '/api/Usage',
  ...OWN_KEYS,
  summary: "The signed-in user's requests this period against their plan quota, and per key (account dashboard)",
  description:
    "Needs system:full-access and the user's JWT (any role). `periods`: this UTC month (and day, when the quota caps it) with the " +
    "gateway's own counter of the user's admitted requests (all keys together, exact and current), the quota and what is left. " +
    "`keys`: this month's requests per key from the usage roll-up (lags by the gateways' flush interval, 10 s by default). " +
    '`format=csv` or `Accept: text/csv` answers the keys as text/csv (id,name,requests).',
  query: {
    schema: usageQuerySchema,
    parameters: [
      { name: 'format', description: '`csv` for text/csv (as `Accept: text/csv`)', schema: { type: 'string', enum: ['json', 'csv'] } },
    ],
  },
  success: { status: 200, description: 'Usage this period', schema: usageResponseSchema, csv: 'id,name,requests: one line per key' },
} satisfies Endpoint;
