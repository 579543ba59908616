import type Koa from 'koa';
import { Router, addProbeRoutes, createHttpApp, type AppState } from '@acs/http';
import { pendingMigrations } from '@acs/db';
import type { IdentityDeps } from './domain/deps.js';
import { internalRoutes } from './routes/internal-routes.js';
import { userRoutes } from './routes/user-routes.js';

export interface IdentityAppOptions {
  deps: IdentityDeps;
  internalSecret: string;
  migrationsDir: string;
}

export function buildIdentityApp({ deps, internalSecret, migrationsDir }: IdentityAppOptions): Koa<AppState> {
  const probes = new Router<AppState>();
  addProbeRoutes(probes, {
    database: async () => (await deps.db.ping(), 'ok'),
    migrations: async () => {
      const pending = await pendingMigrations(deps.db, migrationsDir);
      return pending.length === 0 ? 'ok' : `pending: ${pending.join(', ')}`;
    },
    cache: async () => ((await deps.cache.ping()) ? 'ok' : 'not reachable'),
  });
  return createHttpApp({ logger: deps.logger, internalSecret, routers: [probes, userRoutes(deps), internalRoutes(deps)] });
}
