import { z } from 'zod';
import { booleanFlag, logLevel, port, postgresUrl, secret } from '@acs/config';

export const catalogConfigSchema = z.object({
  PORT: port(8082),
  HOST: z.string().default('0.0.0.0'),
  LOG_LEVEL: logLevel(),
  /** This service's own database; created when missing. Unset: embedded PGlite under DATA_DIR. */
  DATABASE_URL: postgresUrl().optional(),
  DATA_DIR: z.string().default('./.data'),
  INTERNAL_SECRET: secret(),
  /** Load the bundled products on the first start (an empty catalog that was never seeded). */
  CATALOG_SEED: booleanFlag(true),
  DB_POOL_SIZE: z.coerce.number().int().positive().default(10),
});

export type CatalogConfig = z.infer<typeof catalogConfigSchema>;
