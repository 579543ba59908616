import { z } from 'zod';
import { catalogEntryInputSchema } from '../catalog.js';
import { atLeast, type Endpoint } from '../endpoint.js';
import { ROLE } from '../roles.js';

const importRequestSchema = z.union([z.array(catalogEntryInputSchema), z.object({ items: z.array(catalogEntryInputSchema) })]);
const importResultSchema = z.object({ inserted: z.number().int(), updated: z.number().int(), total: z.number().int() });

/** Only dryRun; anything else (a typo such as dry_run) is refused rather than silently writing. */
const importQuerySchema = z.strictObject({
  dryRun: z.enum(['true', 'false'], { message: 'dryRun must be true or false' }).optional(),
});

export const importCatalogEndpoint = {
  operationId: 'importCatalog',
  method: 'POST',
  path: '/api/Dac/import',
  scope: 'write:devices',
  user: atLeast(ROLE.admin),
  upstream: 'catalog',
  summary: 'Import catalog entries (Admin)',
  description:
    'Admin only: scope write:devices and a user JWT with role >= 2. Body: a JSON array of entries, or {"items": [...]}, in the catalog entry ' +
    'shape (strict; currency defaults to USD). Every row is validated before anything is written; if any row is invalid the answer is 400 with ' +
    'details [{path: "items[<index>].<field>", message}] (at most 100; the message gives the total) and nothing is written. The same product ' +
    '(type, brand and model, ignoring case) twice in one request is a 400 naming both indexes. A valid request upserts by (type, brand, model, ' +
    'ignoring case) in one transaction and answers 200 {inserted, updated, total}. ?dryRun=true validates and answers the same counts without ' +
    'writing; any other query parameter is a 400. Limits: 16 MiB body and 20,000 entries per request, 413 beyond either (split larger files; ' +
    '`npm run catalog -- import` does). Imports are visible in GET /api/Dac at once, through every catalog instance (with a read replica, ' +
    'an instance reads the primary until the replica has replayed every version it heard of).',
  query: {
    schema: importQuerySchema,
    parameters: [{ name: 'dryRun', description: 'true: validate and count, write nothing', schema: { type: 'boolean', default: false } }],
  },
  requestBody: importRequestSchema,
  // Streamed and validated row by row by the catalog service (16 MiB, 20,000 rows), not parsed whole with the schema.
  bodyReading: 'own',
  success: { status: 200, description: 'Import summary', schema: importResultSchema },
  errors: { 400: 'Invalid rows (nothing written)', 413: 'Body over 16 MiB or more than 20,000 entries' },
} satisfies Endpoint;
