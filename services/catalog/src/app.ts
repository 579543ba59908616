import type Koa from 'koa';
import { createHttpApp, type AppState, type HttpAppOptions } from '@acs/http';
import { databaseReadinessChecks, type Db } from '@acs/db';
import type { Logger } from '@acs/logger';
import type { Registry } from '@acs/metrics';
import { catalogRoutes } from './routes/catalog-routes.js';
import { internalRoutes } from './routes/internal-routes.js';
import { importRoutes } from './routes/import-routes.js';
import { DeepPageLimiter } from './domain/deep-page-limiter.js';
import type { CatalogReads } from './data-access/catalog-reads.js';

export interface CatalogAppOptions {
  db: Db;
  /** Where reads go: the primary alone, or a streaming replica (CATALOG_READ_DATABASE_URL) and the primary. */
  reads: CatalogReads;
  logger: Logger;
  /** This service's own internal keys (libs/config internalKeys). */
  internalSecret: HttpAppOptions['internalSecret'];
  /** PEER_INTERNAL_SECRET: device's key for the /internal/ routes only. */
  peerSecrets?: HttpAppOptions['peerSecrets'];
  migrationsDir: string;
  metrics: Registry;
  listing: { maxAgeSeconds: number; deepOffset: number; deepPageConcurrency: number };
}

export function buildCatalogApp({
  db,
  reads,
  logger,
  internalSecret,
  peerSecrets = [],
  migrationsDir,
  metrics,
  listing,
}: CatalogAppOptions): Koa<AppState> {
  return createHttpApp({
    readiness: databaseReadinessChecks(db, migrationsDir),
    service: 'catalog',
    logger,
    internalSecret,
    peerSecrets,
    routers: [
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
