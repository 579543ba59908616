import { z } from 'zod';
import { catalogEntrySchema } from './catalog.js';

// GET /api/Dac: the spec leaves defaults and maximum open; these are the platform's decisions.
export const CATALOG_DEFAULT_PAGE_SIZE = 20;
export const CATALOG_MAX_PAGE_SIZE = 100;
export const CATALOG_MAX_PAGE = 1_000_000;

// Query values arrive as strings; only plain decimal digits are numbers here ("1e3" and " 2" are not).
const positiveInteger = (max: number, what: string) =>
  z
    .string()
    .regex(/^[0-9]{1,9}$/, `${what} must be a whole number`)
    .transform(Number)
    .pipe(z.number().int().min(1, `${what} must be at least 1`).max(max, `${what} must be at most ${max}`));

/** Unknown parameters are refused so a typo (`pagesize`) is reported instead of silently ignored. */
export const catalogQuerySchema = z.strictObject({
  brand: z.string().trim().min(1, 'brand must not be empty').max(80).optional(),
  page: positiveInteger(CATALOG_MAX_PAGE, 'page').default(1),
  pageSize: positiveInteger(CATALOG_MAX_PAGE_SIZE, 'pageSize').default(CATALOG_DEFAULT_PAGE_SIZE),
});
export type CatalogQuery = z.infer<typeof catalogQuerySchema>;

export const catalogPageSchema = z.object({
  items: z.array(catalogEntrySchema),
  page: z.number().int(),
  pageSize: z.number().int(),
  total: z.number().int(),
  totalPages: z.number().int(),
});
export type CatalogPage = z.infer<typeof catalogPageSchema>;
