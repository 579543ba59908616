import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { openDatabase, migrate, type Db } from '@acs/db';
import type { Cache } from '@acs/cache';
import type { Logger } from '@acs/logger';
import { listen, type RunningServer } from '@acs/http';
import type { KeysConfig } from './config.js';
import { buildKeysApp } from './app.js';
import type { KeysDeps } from './domain/deps.js';
import { applySeedKey } from './domain/system-keys.js';

export const KEYS_MIGRATIONS_DIR = fileURLToPath(new URL('../migrations/', import.meta.url));

export interface KeysService {
  server: RunningServer;
  deps: KeysDeps;
  close(): Promise<void>;
}

/** Opens this service's database (PostgreSQL when DATABASE_URL is set, else PGlite under DATA_DIR/keys). */
export async function openKeysDeps(config: KeysConfig, logger: Logger, cache: Cache): Promise<KeysDeps> {
  const db: Db = await openDatabase(config.DATABASE_URL ? { url: config.DATABASE_URL, logger } : { dataDir: join(config.DATA_DIR, 'keys'), logger });
  await migrate(db, KEYS_MIGRATIONS_DIR, logger);
  return { db, cache, logger, keyPrefix: config.KEY_PREFIX };
}

/** Starts the keys service; the cache is passed in because the embedded mode shares one with the gateway. */
export async function startKeysService(config: KeysConfig, logger: Logger, cache: Cache): Promise<KeysService> {
  const deps = await openKeysDeps(config, logger, cache);
  if (config.SEED_API_KEY) {
    if (!config.SEED_API_SECRET) throw new Error('SEED_API_SECRET is required when SEED_API_KEY is set');
    await applySeedKey(deps, { key: config.SEED_API_KEY, secret: config.SEED_API_SECRET, scopes: config.SEED_API_SCOPES, name: config.SEED_API_NAME });
  }
  const app = buildKeysApp({ deps, internalSecret: config.INTERNAL_SECRET, migrationsDir: KEYS_MIGRATIONS_DIR });
  const server = await listen(app.callback(), config.PORT, config.HOST);
  logger.info({ url: server.url }, 'keys service listening');
  return {
    server,
    deps,
    close: async () => {
      await server.close();
      await deps.db.close();
    },
  };
}
