import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { migrate, openDatabase, type Db } from '@acs/db';
import { listen, type RunningServer } from '@acs/http';
import type { Logger } from '@acs/logger';
import { createMetricsRegistry } from '@acs/metrics';
import { buildCatalogApp } from './app.js';
import type { CatalogConfig } from './config.js';
import { seedCatalogOnce } from './domain/seed-catalog.js';

export const CATALOG_MIGRATIONS_DIR = fileURLToPath(new URL('../migrations/', import.meta.url));

export interface CatalogService {
  server: RunningServer;
  db: Db;
  close(): Promise<void>;
}

export async function startCatalogService(config: CatalogConfig, logger: Logger): Promise<CatalogService> {
  const db = await openDatabase(
    config.DATABASE_URL ? { url: config.DATABASE_URL, logger, poolSize: config.DB_POOL_SIZE } : { dataDir: join(config.DATA_DIR, 'catalog'), logger },
  );
  try {
    await migrate(db, CATALOG_MIGRATIONS_DIR, logger);
    if (config.CATALOG_SEED) await seedCatalogOnce(db, logger);
    const app = buildCatalogApp({ db, logger, internalSecret: config.INTERNAL_SECRET, migrationsDir: CATALOG_MIGRATIONS_DIR, metrics: createMetricsRegistry('catalog') });
    const server = await listen(app.callback(), config.PORT, config.HOST);
    logger.info({ url: server.url }, 'catalog service listening');
    return {
      server,
      db,
      close: async () => {
        await server.close();
        await db.close();
      },
    };
  } catch (err) {
    // A failed start (migration, seed, port taken) must not keep the pool's connections open.
    await db.close().catch((closeErr: unknown) => logger.error({ err: closeErr }, 'could not close the database after a failed start'));
    throw err;
  }
}
