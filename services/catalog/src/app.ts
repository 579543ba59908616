import type Koa from 'koa';
import { Router, addProbeRoutes, createHttpApp, type AppState } from '@acs/http';
import { databaseReadinessChecks, type Db } from '@acs/db';
import type { Logger } from '@acs/logger';
import type { Registry } from '@acs/metrics';
import { catalogRoutes } from './routes/catalog-routes.js';
import { internalRoutes } from './routes/internal-routes.js';
import { importRoutes } from './routes/import-routes.js';
import { DeepPageLimiter } from './domain/deep-page-limiter.js';
import { CatalogReads } from './data-access/catalog-reads.js';

export interface CatalogAppOptions {
  db: Db;
  /** The streaming replica reads go to (CATALOG_READ_DATABASE_URL), or null. */
  readDb: Db | null;
  logger: Logger;
  internalSecret: string;
  migrationsDir: string;
  metrics: Registry;
  listing: { maxAgeSeconds: number; deepOffset: number; deepPageConcurrency: number };
}

export function buildCatalogApp({ db, readDb, logger, internalSecret, migrationsDir, metrics, listing }: CatalogAppOptions): Koa<AppState> {
  const probes = new Router<AppState>();
  const reads = new CatalogReads(db, readDb, logger);
  addProbeRoutes(probes, databaseReadinessChecks(db, migrationsDir));
  return createHttpApp({
    service: 'catalog',
    logger,
    internalSecret,
    routers: [
      probes,
      catalogRoutes(reads, {
        maxAgeSeconds: listing.maxAgeSeconds,
        deepOffset: listing.deepOffset,
        deepPages: new DeepPageLimiter(listing.deepPageConcurrency),
      }),
      importRoutes(db, reads),
      internalRoutes(db),
    ],
    metrics,
  });
}
