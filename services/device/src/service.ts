import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { migrate, openDatabase, type Db } from '@acs/db';
import { listen, type RunningServer } from '@acs/http';
import type { Logger } from '@acs/logger';
import { createMetricsRegistry } from '@acs/metrics';
import { buildDeviceApp } from './app.js';
import type { DeviceConfig } from './config.js';
import { createCatalogClient } from './domain/catalog-client.js';

export const DEVICE_MIGRATIONS_DIR = fileURLToPath(new URL('../migrations/', import.meta.url));

export interface DeviceService {
  server: RunningServer;
  db: Db;
  close(): Promise<void>;
}

/** Starts the device service on its own database (PostgreSQL when DATABASE_URL is set, else PGlite under DATA_DIR/device). */
export async function startDeviceService(config: DeviceConfig, logger: Logger): Promise<DeviceService> {
  const db = await openDatabase(config.DATABASE_URL ? { url: config.DATABASE_URL, logger } : { dataDir: join(config.DATA_DIR, 'device'), logger });
  const catalog = createCatalogClient(config.CATALOG_URL, config.INTERNAL_SECRET, config.CATALOG_TIMEOUT_MS);
  try {
    await migrate(db, DEVICE_MIGRATIONS_DIR, logger);
    const app = buildDeviceApp({ deps: { db, logger, catalog }, internalSecret: config.INTERNAL_SECRET, migrationsDir: DEVICE_MIGRATIONS_DIR, metrics: createMetricsRegistry('device') });
    const server = await listen(app.callback(), config.PORT, config.HOST);
    logger.info({ url: server.url, catalog: new URL(config.CATALOG_URL).origin }, 'device service listening');
    return {
      server,
      db,
      close: async () => {
        await server.close();
        await catalog.close();
        await db.close();
      },
    };
  } catch (err) {
    // A failed start (migration, port taken) must not keep the pool's connections open.
    await catalog.close().catch(() => {});
    await db.close().catch((closeErr: unknown) => logger.error({ err: closeErr }, 'could not close the database after a failed start'));
    throw err;
  }
}
