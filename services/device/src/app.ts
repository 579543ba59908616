import type Koa from 'koa';
import { createHttpApp, type AppState, type HttpAppOptions } from '@acs/http';
import { databaseReadinessChecks } from '@acs/db';
import type { Registry } from '@acs/metrics';
import type { DeviceDeps } from './domain/deps.js';
import { deviceRoutes } from './routes/device-routes.js';

export interface DeviceAppOptions {
  deps: DeviceDeps;
  /** This service's own internal keys (libs/config internalKeys). */
  internalSecret: HttpAppOptions['internalSecret'];
  migrationsDir: string;
  metrics: Registry;
}

export function buildDeviceApp({ deps, internalSecret, migrationsDir, metrics }: DeviceAppOptions): Koa<AppState> {
  // The catalog is not a readiness check: listing works without it (catalogUnavailable), and
  // a registration that needs it answers 503 by itself. Taking the service out of rotation
  // whenever the catalog blips would turn a partial outage into a full one.
  return createHttpApp({
    readiness: databaseReadinessChecks(deps.db, migrationsDir),
    service: 'device',
    logger: deps.logger,
    internalSecret,
    routers: [deviceRoutes(deps)],
    metrics,
  });
}
