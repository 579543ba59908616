import type Koa from 'koa';
import { Router, addProbeRoutes, createHttpApp, type AppState } from '@acs/http';
import { databaseReadinessChecks, type Db } from '@acs/db';
import type { Logger } from '@acs/logger';
import type { Registry } from '@acs/metrics';
import { catalogRoutes } from './routes/catalog-routes.js';
import { internalRoutes } from './routes/internal-routes.js';
import { importRoutes } from './routes/import-routes.js';
import { DeepPageLimiter } from './domain/deep-page-limiter.js';

export interface CatalogAppOptions {
  db: Db;
  logger: Logger;
  internalSecret: string;
  migrationsDir: string;
  metrics: Registry;
  listing: { maxAgeSeconds: number; deepOffset: number; deepPageConcurrency: number };
}

export function buildCatalogApp({ db, logger, internalSecret, migrationsDir, metrics, listing }: CatalogAppOptions): Koa<AppState> {
  const probes = new Router<AppState>();
  addProbeRoutes(probes, databaseReadinessChecks(db, migrationsDir));
  return createHttpApp({ service: 'catalog', logger, internalSecret, routers: [probes, catalogRoutes(db, { maxAgeSeconds: listing.maxAgeSeconds, deepOffset: listing.deepOffset, deepPages: new DeepPageLimiter(listing.deepPageConcurrency) }), importRoutes(db), internalRoutes(db)], metrics });
}
