import { z } from 'zod';
import { NO_USER, type Endpoint } from '../endpoint.js';
import { CATALOG_TYPES } from '../catalog.js';
import {
  CATALOG_CURSOR_MAX_LENGTH,
  CATALOG_DEFAULT_PAGE_SIZE,
  CATALOG_MAX_PAGE,
  CATALOG_MAX_PAGE_SIZE,
  CATALOG_MAX_SEARCH_LENGTH,
  catalogPageSchema,
  catalogQuerySchema,
} from '../catalog-query.js';

const CATALOG_CACHE_HEADERS: Record<string, { description: string; schema: Record<string, unknown> }> = {
  ETag: { description: 'The catalog version and the query: changes exactly when the answer would', schema: { type: 'string' } },
  'Cache-Control': { description: 'private, max-age=<CATALOG_MAX_AGE_SECONDS, default 60>', schema: { type: 'string' } },
};

export const listCatalogEndpoint = {
  operationId: 'listCatalog',
  method: 'GET',
  path: '/api/Dac',
  scope: 'read:devices',
  user: NO_USER,
  upstream: 'catalog',
  summary: 'List catalog entries (DACs, amplifiers, speakers)',
  description:
    `Ordered by id (stable across pages). \`brand\` matches the whole brand name, ignoring case. ` +
    `page defaults to 1 (at most ${CATALOG_MAX_PAGE}); pageSize defaults to ${CATALOG_DEFAULT_PAGE_SIZE}, at most ${CATALOG_MAX_PAGE_SIZE}. ` +
    'Unknown parameters and invalid values give 400. A page past the end answers an empty `items` list. ' +
    'Every answer carries `nextCursor`: pass it as `cursor` (instead of `page`) for the entries after it; null on the last page. ' +
    'A cursor answer costs the same however far in, keeps the filters the cursor was made with (a different `brand` gives 400) and has `page` null. ' +
    'Deep `page` requests (many skipped rows) are served a few at a time, so they never slow down other requests; prefer the cursor. ' +
    '`type` and `q` (search) combine with `brand` and with both ways of paging; a search is served a few at a time like deep pages. ' +
    'Answers carry an ETag (the catalog version and the query) and Cache-Control; If-None-Match with the current tag gives 304 with no body.',
  headers: [
    {
      name: 'If-None-Match',
      description: 'An ETag of an earlier answer (or a list, or *): 304 when it is still current',
      schema: z.string(),
    },
  ],
  query: {
    schema: catalogQuerySchema,
    parameters: [
      { name: 'brand', description: 'Brand name, case-insensitive exact match', schema: { type: 'string', minLength: 1, maxLength: 80 } },
      { name: 'type', description: 'Only entries of this type', schema: { type: 'string', enum: [...CATALOG_TYPES] } },
      {
        name: 'q',
        description: 'Search: a case-insensitive substring (or prefix) of "<brand> <model>"; %, _ and \\ match themselves',
        schema: { type: 'string', minLength: 1, maxLength: CATALOG_MAX_SEARCH_LENGTH },
      },
      {
        name: 'cursor',
        description: 'The nextCursor of an earlier answer (opaque); replaces page, so not both. Carries the filters (brand, type, q)',
        schema: { type: 'string', pattern: '^[A-Za-z0-9_-]+$', maxLength: CATALOG_CURSOR_MAX_LENGTH },
      },
      { name: 'page', description: 'Page number, from 1', schema: { type: 'integer', minimum: 1, maximum: CATALOG_MAX_PAGE, default: 1 } },
      {
        name: 'pageSize',
        description: 'Entries per page',
        schema: { type: 'integer', minimum: 1, maximum: CATALOG_MAX_PAGE_SIZE, default: CATALOG_DEFAULT_PAGE_SIZE },
      },
    ],
  },
  success: { status: 200, description: 'One page of entries', schema: catalogPageSchema, headers: CATALOG_CACHE_HEADERS },
  alsoSucceeds: [{ status: 304, description: 'Not modified: the If-None-Match tag is current; no body', headers: CATALOG_CACHE_HEADERS }],
  errors: { 400: 'Invalid query parameter, or a cursor made for other filters' },
} satisfies Endpoint;
