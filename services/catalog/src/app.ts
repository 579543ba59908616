import type Koa from 'koa';
import { Router, addProbeRoutes, createHttpApp, type AppState } from '@acs/http';
import { databaseReadinessChecks, type Db } from '@acs/db';
import type { Logger } from '@acs/logger';
import type { Registry } from '@acs/metrics';
import { catalogRoutes } from './routes/catalog-routes.js';
import { internalRoutes } from './routes/internal-routes.js';
import { importRoutes } from './routes/import-routes.js';

export interface CatalogAppOptions {
  db: Db;
  logger: Logger;
  internalSecret: string;
  migrationsDir: string;
  metrics: Registry;
}

export function buildCatalogApp({ db, logger, internalSecret, migrationsDir, metrics }: CatalogAppOptions): Koa<AppState> {
  const probes = new Router<AppState>();
  addProbeRoutes(probes, databaseReadinessChecks(db, migrationsDir));
  return createHttpApp({ service: 'catalog', logger, internalSecret, routers: [probes, catalogRoutes(db), importRoutes(db), internalRoutes(db)], metrics });
}
