import { z } from 'zod';
import { catalogTypeSchema } from './catalog.js';
import { rowIdSchema } from './row-id.js';

/**
 * Service-to-service: which catalog entries exist, and a short summary of each. The device
 * service asks this (signed with the internal secret) instead of reading the catalog's tables.
 */
export const CATALOG_SUMMARIES_PATH = '/internal/catalog/summaries';
export const catalogSummariesRequestSchema = z.object({ ids: z.array(rowIdSchema()).min(1).max(1000) });
export const catalogSummarySchema = z.object({ id: rowIdSchema(), type: catalogTypeSchema, brand: z.string(), model: z.string() });
export const catalogSummariesResponseSchema = z.object({ entries: z.array(catalogSummarySchema) });
export type CatalogSummary = z.infer<typeof catalogSummarySchema>;
