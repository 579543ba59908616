import type Koa from 'koa';
import type { Router } from '@koa/router';
import type { Logger } from '@acs/logger';
import type { Registry } from '@acs/metrics';
import { createHttpApp, type HttpAppOptions } from './create-app.js';
import type { ReadinessCheck } from './health.js';
import type { AppState } from './types.js';

/** What a service's buildXxxApp is given by its start-up (service.ts) and by its tests. */
export interface ServiceAppOptions<Deps extends { logger: Logger }> {
  /** The service's dependencies; their logger is the app's. */
  deps: Deps;
  /** This service's own internal keys (libs/config internalKeys). */
  internalSecret: HttpAppOptions['internalSecret'];
  /** The service's migrations: /readyz says which are still pending. */
  migrationsDir: string;
  metrics: Registry;
}

/**
 * createHttpApp as the services whose handlers share one deps object call it: the app logs with
 * the deps' logger; `readiness` and `routers` are the service's own.
 */
export function createServiceApp<Deps extends { logger: Logger }>(
  service: string,
  { deps, internalSecret, metrics }: ServiceAppOptions<Deps>,
  readiness: Record<string, ReadinessCheck>,
  routers: Router<AppState>[],
): Koa<AppState> {
  return createHttpApp({ service, logger: deps.logger, internalSecret, metrics, readiness, routers });
}
