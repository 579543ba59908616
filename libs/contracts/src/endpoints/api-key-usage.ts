import { z } from 'zod';
import { type Endpoint, ownRecord, OWN_KEYS } from '../endpoint.js';
import { apiKeyOperationUsageResponseSchema, apiKeyUsageQuerySchema, apiKeyUsageResponseSchema } from '../api-keys.js';

const instant = { type: 'string', description: 'YYYY-MM-DD (UTC midnight) or an ISO 8601 date-time' };

export const apiKeyUsageEndpoint = {
  operationId: 'apiKeyUsage',
  method: 'GET',
  path: '/api/ApiKeys/{id}/usage',
  ...OWN_KEYS,
  summary: "A key's requests per UTC day and status class, or per operation and UTC hour (account dashboard)",
  description:
    "Needs system:full-access and the owner's JWT (any role). By default the last `days` UTC days, today included, oldest first; days " +
    'without traffic appear with zeros. With `by=operation`: per operation (the operationId of this document) and UTC hour in ' +
    '[`from`, `to`) (default: the last 7 days; at most USAGE_RETENTION_DAYS, 90 by default, are kept), with the totals per operation. ' +
    'byStatus counts 2xx, 3xx, 4xx (429 excepted), 429 and 5xx answers. `format=csv` or `Accept: text/csv` answers the same rows as ' +
    'text/csv (a header line, then date or hour,operationId, requests and the five classes). Gateways send counts in batches ' +
    "(KEY_USAGE_FLUSH_MS, 10 s by default), so the newest requests may be missing for that long. Someone else's key gives 404.",
  ...ownRecord('key', { 400: 'days not a whole number in 1..90; from or to not a date; from not before to; a range longer than kept' }),
  query: {
    schema: apiKeyUsageQuerySchema,
    parameters: [
      {
        name: 'days',
        description: 'how many days back, 1-90 (default 30); by=day only',
        schema: { type: 'integer', minimum: 1, maximum: 90, default: 30 },
      },
      { name: 'by', description: '`day` (default) or `operation`', schema: { type: 'string', enum: ['day', 'operation'], default: 'day' } },
      { name: 'from', description: 'by=operation: start, inclusive (default: `to` minus 7 days)', schema: instant },
      { name: 'to', description: 'by=operation: end, exclusive (default: now)', schema: instant },
      { name: 'format', description: '`csv` for text/csv (as `Accept: text/csv`)', schema: { type: 'string', enum: ['json', 'csv'] } },
    ],
  },
  success: {
    status: 200,
    description: 'Daily counts, or counts per operation and hour (by=operation); text/csv when asked for',
    schema: z.union([apiKeyUsageResponseSchema, apiKeyOperationUsageResponseSchema]),
    csv: 'a header line (date or hour,operationId, then requests,2xx,3xx,4xx,429,5xx), then one line per day or per hour and operation',
  },
} satisfies Endpoint;
