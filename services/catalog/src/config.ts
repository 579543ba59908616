import { z } from 'zod';
import { booleanFlag, postgresUrl, secret, serviceFields } from '@acs/config';

export const catalogConfigSchema = z.object({
  ...serviceFields(8082),
  /** Load the bundled products on the first start (an empty catalog that was never seeded). */
  CATALOG_SEED: booleanFlag(true),
  DB_POOL_SIZE: z.coerce.number().int().positive().default(10),
  /**
   * A streaming replica of the catalog database (used as is, not renamed <name>_catalog): reads go
   * there, imports to DATABASE_URL. Unset: everything on the primary.
   */
  CATALOG_READ_DATABASE_URL: z.preprocess((value) => (value === '' ? undefined : value), postgresUrl().optional()),
  /** Cache-Control max-age of GET /api/Dac answers, in seconds (clients revalidate with If-None-Match after it). */
  CATALOG_MAX_AGE_SECONDS: z.coerce.number().int().min(0).default(60),
  /** A `page` request that skips at least this many rows is deep: it waits for one of CATALOG_DEEP_PAGE_CONCURRENCY slots. */
  CATALOG_DEEP_OFFSET: z.coerce.number().int().positive().default(10_000),
  /** Deep `page` requests running at once (each holds one connection); keep it below DB_POOL_SIZE. */
  CATALOG_DEEP_PAGE_CONCURRENCY: z.coerce.number().int().positive().default(2),
  /**
   * The key the device service signs its calls to /internal/catalog/* with (device's CATALOG_PEER_SECRET).
   * It opens those routes only: device cannot sign a context for the catalog's API. Unset: device calls are
   * refused, unless device signs with this service's own INTERNAL_SECRET (a deployment with one key for all).
   */
  PEER_INTERNAL_SECRET: secret().optional(),
});

export type CatalogConfig = z.infer<typeof catalogConfigSchema>;
