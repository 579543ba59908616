import { internalKeys } from '@acs/config';
import { fileURLToPath } from 'node:url';
import { openDatabase, openConfiguredDatabaseIn, type Db } from '@acs/db';
import { listen, startWithCloseStack, type RunningServer } from '@acs/http';
import type { Logger } from '@acs/logger';
import { createMetricsRegistry } from '@acs/metrics';
import { buildCatalogApp } from './app.js';
import type { CatalogConfig } from './config.js';
import { seedCatalogOnce } from './domain/seed-catalog.js';
import { CatalogReads } from './data-access/catalog-reads.js';
import { followCatalogVersions } from './data-access/catalog-version-feed.js';

export const CATALOG_MIGRATIONS_DIR = fileURLToPath(new URL('../migrations/', import.meta.url));

export interface CatalogService {
  server: RunningServer;
  db: Db;
  close(): Promise<void>;
}

/** How long a start waits for the replica to have the catalog database (a new one is replayed, not created). */
const REPLICA_START_WAIT_MS = 30_000;

/**
 * A standby cannot create a database: on a first start the catalog database reaches the replica
 * only when it has replayed the primary's CREATE DATABASE, so opening is retried for a while.
 */
async function openReplica(url: string, poolSize: number, logger: Logger): Promise<Db> {
  const deadline = Date.now() + REPLICA_START_WAIT_MS;
  for (;;) {
    try {
      return await openDatabase({ url, logger, poolSize });
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

export function startCatalogService(config: CatalogConfig, logger: Logger): Promise<CatalogService> {
  // A failed start (migration, seed, port taken) closes what it opened: no pool stays behind.
  return startWithCloseStack(logger, async (stack) => {
    const db = await openConfiguredDatabaseIn(stack, 'catalog', config, CATALOG_MIGRATIONS_DIR, logger);
    if (config.CATALOG_SEED) await seedCatalogOnce(db, logger);
    const metrics = createMetricsRegistry('catalog');
    // The replica is opened after the primary's migrations: its copy of the database exists by then.
    let readDb: Db | null = null;
    if (config.CATALOG_READ_DATABASE_URL) {
      const replica = await openReplica(config.CATALOG_READ_DATABASE_URL, config.DB_POOL_SIZE, logger);
      stack.defer('the read replica', () => replica.close());
      readDb = replica;
    }
    const reads = new CatalogReads(db, readDb, logger, metrics);
    // With a replica, every instance hears every committed version (read-your-writes across instances).
    if (readDb && config.DATABASE_URL) {
      const feed = await followCatalogVersions(config.DATABASE_URL, db, reads, logger);
      stack.defer('the catalog version feed', () => feed.close());
    }
    const app = buildCatalogApp({
      db,
      reads,
      logger,
      internalSecret: internalKeys(config),
      peerSecrets: config.PEER_INTERNAL_SECRET ? [config.PEER_INTERNAL_SECRET] : [],
      migrationsDir: CATALOG_MIGRATIONS_DIR,
      metrics,
      listing: {
        maxAgeSeconds: config.CATALOG_MAX_AGE_SECONDS,
        deepOffset: config.CATALOG_DEEP_OFFSET,
        deepPageConcurrency: config.CATALOG_DEEP_PAGE_CONCURRENCY,
      },
    });
    const server = await listen(app.callback(), config.PORT, config.HOST);
    stack.defer('the HTTP server', () => server.close());
    logger.info({ url: server.url }, 'catalog service listening');
    return { server, db, close: stack.close };
  });
}
