import type Koa from 'koa';
import { createServiceApp, type AppState, type ServiceAppOptions } from '@acs/http';
import { databaseReadinessChecks } from '@acs/db';
import type { DeviceDeps } from './domain/deps.js';
import { deviceRoutes } from './routes/device-routes.js';

export type DeviceAppOptions = ServiceAppOptions<DeviceDeps>;

export function buildDeviceApp(options: DeviceAppOptions): Koa<AppState> {
  // The catalog is not a readiness check: listing works without it (catalogUnavailable), and
  // a registration that needs it answers 503 by itself. Taking the service out of rotation
  // whenever the catalog blips would turn a partial outage into a full one.
  const { deps, migrationsDir } = options;
  return createServiceApp('device', options, databaseReadinessChecks(deps.db, migrationsDir), [deviceRoutes(deps)]);
}
