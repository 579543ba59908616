import { z } from 'zod';
import { busFields, httpUrl, secret, serviceFields, userEventsFields } from '@acs/config';

export const deviceConfigSchema = z.object({
  ...serviceFields(8084),
  /** Optional here: with AMQP_URL the service erases a deleted account's devices (user.deleted.v1); without it, it consumes nothing. */
  ...busFields(),
  ...userEventsFields('device'),
  /** The catalog service's origin (any path is ignored): asked which catalog entries exist. */
  CATALOG_URL: httpUrl(),
  /**
   * Signs this service's calls to the catalog's /internal/ routes: the catalog's PEER_INTERNAL_SECRET, a key of
   * their own (never the catalog's INTERNAL_SECRET, which would let this service sign for the catalog's whole API).
   * Unset: INTERNAL_SECRET (a deployment with one key for all).
   */
  CATALOG_PEER_SECRET: secret().optional(),
  /** Whole deadline of one call to the catalog (connect, headers and body); beyond it the call fails. */
  CATALOG_TIMEOUT_MS: z.coerce
    .number({ error: 'expected a whole number of milliseconds' })
    .int('expected a whole number of milliseconds')
    .min(50, 'expected at least 50')
    .max(60_000, 'expected at most 60000')
    .default(2000),
});

export type DeviceConfig = z.infer<typeof deviceConfigSchema>;
