import { z } from 'zod';
import { httpUrl, logLevel, port, postgresUrl, secret } from '@acs/config';

export const deviceConfigSchema = z.object({
  PORT: port(8084),
  HOST: z.string().default('0.0.0.0'),
  LOG_LEVEL: logLevel(),
  /** This service's own database; created when missing. Unset: embedded PGlite under DATA_DIR. */
  DATABASE_URL: postgresUrl().optional(),
  DATA_DIR: z.string().default('./.data'),
  INTERNAL_SECRET: secret(),
  /** The catalog service's origin (any path is ignored): asked which catalog entries exist. */
  CATALOG_URL: httpUrl(),
  /** Whole deadline of one call to the catalog (connect, headers and body); beyond it the call fails. */
  CATALOG_TIMEOUT_MS: z.coerce
    .number({ error: 'expected a whole number of milliseconds' })
    .int('expected a whole number of milliseconds')
    .min(50, 'expected at least 50')
    .max(60_000, 'expected at most 60000')
    .default(2000),
});

export type DeviceConfig = z.infer<typeof deviceConfigSchema>;
