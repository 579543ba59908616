import { fileURLToPath } from 'node:url';
import { openServiceDatabase, type Db } from '@acs/db';
import { listen, startWithCloseStack, type RunningServer } from '@acs/http';
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

export function startCatalogService(config: CatalogConfig, logger: Logger): Promise<CatalogService> {
  // A failed start (migration, seed, port taken) closes what it opened: no pool stays behind.
  return startWithCloseStack(logger, async (stack) => {
    const db = await openServiceDatabase({
      service: 'catalog', url: config.DATABASE_URL, dataDir: config.DATA_DIR, migrationsDir: CATALOG_MIGRATIONS_DIR, logger, poolSize: config.DB_POOL_SIZE,
    });
    stack.defer('the database', () => db.close());
    if (config.CATALOG_SEED) await seedCatalogOnce(db, logger);
    const app = buildCatalogApp({
      db, logger, internalSecret: config.INTERNAL_SECRET, migrationsDir: CATALOG_MIGRATIONS_DIR, metrics: createMetricsRegistry('catalog'),
      listing: { maxAgeSeconds: config.CATALOG_MAX_AGE_SECONDS, deepOffset: config.CATALOG_DEEP_OFFSET, deepPageConcurrency: config.CATALOG_DEEP_PAGE_CONCURRENCY },
    });
    const server = await listen(app.callback(), config.PORT, config.HOST);
    stack.defer('the HTTP server', () => server.close());
    logger.info({ url: server.url }, 'catalog service listening');
    return { server, db, close: stack.close };
  });
}
