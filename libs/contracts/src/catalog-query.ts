import { z } from 'zod';
import { CATALOG_TYPES, catalogEntrySchema } from './catalog.js';

// GET /api/Dac: the spec leaves defaults and maximum open; these are the platform's decisions.
export const CATALOG_DEFAULT_PAGE_SIZE = 20;
export const CATALOG_MAX_PAGE_SIZE = 100;
export const CATALOG_MAX_PAGE = 1_000_000;

// Query values arrive as strings; only plain decimal digits are numbers here ("1e3" and " 2" are not).
const positiveInteger = (max: number, what: string) =>
  z
    .string()
    .regex(/^[0-9]{1,9}$/, `${what} must be a whole number from 1 to ${max}`)
    .transform(Number)
    .pipe(z.number().int().min(1, `${what} must be at least 1`).max(max, `${what} must be at most ${max}`));

export const CATALOG_MAX_SEARCH_LENGTH = 80;

/** A cursor is opaque to clients; on the wire it is base64url text of bounded length. */
export const CATALOG_CURSOR_MAX_LENGTH = 1024;

/**
 * Unknown parameters are refused so a typo (`pagesize`) is reported instead of silently ignored.
 * `page` has no default here: a request names `page` or `cursor` (or neither, meaning page 1), and
 * naming both is refused. The service reads a missing page as 1.
 */
export const catalogQuerySchema = z
  .strictObject({
    brand: z.string().trim().min(1, 'brand must not be empty').max(80).optional(),
    type: z.enum(CATALOG_TYPES, { message: `type must be one of ${CATALOG_TYPES.join(', ')}` }).optional(),
    /** Search: a case-insensitive substring of "<brand> <model>". */
    q: z
      .string()
      .trim()
      .min(1, 'q must not be empty')
      .max(CATALOG_MAX_SEARCH_LENGTH, `q must be at most ${CATALOG_MAX_SEARCH_LENGTH} characters`)
      .optional(),
    page: positiveInteger(CATALOG_MAX_PAGE, 'page').optional(),
    pageSize: positiveInteger(CATALOG_MAX_PAGE_SIZE, 'pageSize').default(CATALOG_DEFAULT_PAGE_SIZE),
    cursor: z
      .string()
      .regex(/^[A-Za-z0-9_-]+$/, 'cursor must be a nextCursor value of an earlier answer')
      .max(CATALOG_CURSOR_MAX_LENGTH, 'cursor must be a nextCursor value of an earlier answer')
      .optional(),
  })
  .superRefine((query, ctx) => {
    if (query.page !== undefined && query.cursor !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['cursor'], message: 'cursor replaces page: send one of them' });
    }
  });
export type CatalogQuery = z.infer<typeof catalogQuerySchema>;

export const catalogPageSchema = z.object({
  items: z.array(catalogEntrySchema),
  /** The page asked for (1 when none); null for an answer to `cursor=`. */
  page: z.number().int().nullable(),
  pageSize: z.number().int(),
  total: z.number().int(),
  totalPages: z.number().int(),
  /** Pass as `cursor=` for the entries after this answer's last one; null when there are none. */
  nextCursor: z.string().nullable(),
});
export type CatalogPage = z.infer<typeof catalogPageSchema>;
