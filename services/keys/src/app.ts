import type Koa from 'koa';
import { Router, addProbeRoutes, createHttpApp, type AppState } from '@acs/http';
import { pendingMigrations } from '@acs/db';
import type { KeysDeps } from './domain/deps.js';
import { internalRoutes } from './routes/internal-routes.js';
import { apiKeyRoutes } from './routes/api-key-routes.js';

export interface KeysAppOptions {
  deps: KeysDeps;
  internalSecret: string;
  migrationsDir: string;
  keysPerUser: number;
}

export function buildKeysApp({ deps, internalSecret, migrationsDir, keysPerUser }: KeysAppOptions): Koa<AppState> {
  const probes = new Router<AppState>();
  addProbeRoutes(probes, {
    database: async () => (await deps.db.ping(), 'ok'),
    migrations: async () => {
      const pending = await pendingMigrations(deps.db, migrationsDir);
      return pending.length === 0 ? 'ok' : `pending: ${pending.join(', ')}`;
    },
    cache: async () => ((await deps.cache.ping()) ? 'ok' : 'not reachable'),
  });
  return createHttpApp({ logger: deps.logger, internalSecret, routers: [probes, internalRoutes(deps), apiKeyRoutes(deps, keysPerUser)] });
}
