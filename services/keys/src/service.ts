import { internalKeys } from '@acs/config';
import { fileURLToPath } from 'node:url';
import { openConfiguredDatabase } from '@acs/db';
import type { Cache } from '@acs/cache';
import type { Logger } from '@acs/logger';
import { listen, startWithCloseStack, type RunningServer } from '@acs/http';
import { createMetricsRegistry } from '@acs/metrics';
import type { KeysConfig } from './config.js';
import { buildKeysApp } from './app.js';
import type { KeysDeps } from './domain/deps.js';
import { startUsagePurge } from './domain/usage-purge.js';
import { applySeedKey } from './domain/operator-keys.js';

export const KEYS_MIGRATIONS_DIR = fileURLToPath(new URL('../migrations/', import.meta.url));

export interface KeysService {
  server: RunningServer;
  deps: KeysDeps;
  close(): Promise<void>;
}

/** Opens this service's database (PostgreSQL when DATABASE_URL is set, else PGlite under DATA_DIR/keys), migrated. */
export async function openKeysDeps(
  config: Pick<KeysConfig, 'DATABASE_URL' | 'DATA_DIR' | 'KEY_PREFIX'>,
  logger: Logger,
  cache: Cache,
): Promise<KeysDeps> {
  const db = await openConfiguredDatabase('keys', config, KEYS_MIGRATIONS_DIR, logger);
  return { db, cache, logger, keyPrefix: config.KEY_PREFIX };
}

/** Starts the keys service; the cache is passed in because the embedded mode shares one with the gateway. */
export async function startKeysService(config: KeysConfig, logger: Logger, cache: Cache): Promise<KeysService> {
  // Checked before anything is opened: a bad seed must not leave a database pool behind.
  if (config.SEED_API_KEY && !config.SEED_API_SECRET) throw new Error('SEED_API_SECRET is required when SEED_API_KEY is set');
  // A failed start (bad seed, port taken) closes what it opened: no pool stays behind.
  return startWithCloseStack(logger, async (stack) => {
    const deps = await openKeysDeps(config, logger, cache);
    stack.defer('the database', () => deps.db.close());
    if (config.SEED_API_KEY) {
      await applySeedKey(deps, {
        key: config.SEED_API_KEY,
        secret: config.SEED_API_SECRET!,
        scopes: config.SEED_API_SCOPES,
        name: config.SEED_API_NAME,
      });
    }
    const purge = startUsagePurge(deps.db, config.USAGE_RETENTION_DAYS, logger);
    stack.defer('the usage purge', () => purge.stop());
    const app = buildKeysApp({
      deps,
      internalSecret: internalKeys(config),
      migrationsDir: KEYS_MIGRATIONS_DIR,
      keysPerUser: config.KEYS_PER_USER,
      rateLimitCeiling: config.RATE_LIMIT_CEILING,
      maxLifetimeDays: config.KEY_MAX_LIFETIME_DAYS ?? null,
      usageRetentionDays: config.USAGE_RETENTION_DAYS,
      requireVerifiedEmail: config.REQUIRE_VERIFIED_EMAIL_FOR_KEYS,
      metrics: createMetricsRegistry('keys'),
    });
    const server = await listen(app.callback(), config.PORT, config.HOST);
    stack.defer('the HTTP server', () => server.close());
    logger.info({ url: server.url }, 'keys service listening');
    return { server, deps, close: stack.close };
  });
}
