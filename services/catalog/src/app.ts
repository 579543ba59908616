import type Koa from 'koa';
import { Router, addProbeRoutes, createHttpApp, type AppState } from '@acs/http';
import { pendingMigrations, type Db } from '@acs/db';
import type { Logger } from '@acs/logger';
import { catalogRoutes } from './routes/catalog-routes.js';
import { internalRoutes } from './routes/internal-routes.js';
import { importRoutes } from './routes/import-routes.js';

export interface CatalogAppOptions {
  db: Db;
  logger: Logger;
  internalSecret: string;
  migrationsDir: string;
}

export function buildCatalogApp({ db, logger, internalSecret, migrationsDir }: CatalogAppOptions): Koa<AppState> {
  const probes = new Router<AppState>();
  addProbeRoutes(probes, {
    database: async () => (await db.ping(), 'ok'),
    migrations: async () => {
      const pending = await pendingMigrations(db, migrationsDir);
      return pending.length === 0 ? 'ok' : `pending: ${pending.join(', ')}`;
    },
  });
  return createHttpApp({ logger, internalSecret, routers: [probes, catalogRoutes(db), importRoutes(db), internalRoutes(db)] });
}
