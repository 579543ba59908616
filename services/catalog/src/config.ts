import { z } from 'zod';
import { booleanFlag, serviceFields } from '@acs/config';

export const catalogConfigSchema = z.object({
  ...serviceFields(8082),
  /** Load the bundled products on the first start (an empty catalog that was never seeded). */
  CATALOG_SEED: booleanFlag(true),
  DB_POOL_SIZE: z.coerce.number().int().positive().default(10),
});

export type CatalogConfig = z.infer<typeof catalogConfigSchema>;
