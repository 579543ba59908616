import type Koa from 'koa';
import { Router, addProbeRoutes, createHttpApp, type AppState } from '@acs/http';
import { pendingMigrations } from '@acs/db';
import type { DeviceDeps } from './domain/deps.js';
import { deviceRoutes } from './routes/device-routes.js';

export interface DeviceAppOptions {
  deps: DeviceDeps;
  internalSecret: string;
  migrationsDir: string;
}

export function buildDeviceApp({ deps, internalSecret, migrationsDir }: DeviceAppOptions): Koa<AppState> {
  const probes = new Router<AppState>();
  // The catalog is not a readiness check: listing works without it (catalogUnavailable), and
  // a registration that needs it answers 503 by itself. Taking the service out of rotation
  // whenever the catalog blips would turn a partial outage into a full one.
  addProbeRoutes(probes, {
    database: async () => (await deps.db.ping(), 'ok'),
    migrations: async () => {
      const pending = await pendingMigrations(deps.db, migrationsDir);
      return pending.length === 0 ? 'ok' : `pending: ${pending.join(', ')}`;
    },
  });
  return createHttpApp({ logger: deps.logger, internalSecret, routers: [probes, deviceRoutes(deps)] });
}
