import type Koa from 'koa';
import { createHttpApp, type AppState, type HttpAppOptions } from '@acs/http';
import { databaseReadinessChecks } from '@acs/db';
import type { Registry } from '@acs/metrics';
import type { BillingDeps } from './domain/deps.js';
import { planRoutes } from './routes/plan-routes.js';
import { subscriptionRoutes } from './routes/subscription-routes.js';

export interface BillingAppOptions {
  deps: BillingDeps;
  /** This service's own internal keys (libs/config internalKeys). */
  internalSecret: HttpAppOptions['internalSecret'];
  migrationsDir: string;
  metrics: Registry;
}

/**
 * Readiness covers the database only: subscriptions are accepted while the broker is away (the
 * outbox keeps their events), so a broker outage must not take billing out of the load balancer.
 */
export function buildBillingApp({ deps, internalSecret, migrationsDir, metrics }: BillingAppOptions): Koa<AppState> {
  return createHttpApp({
    readiness: databaseReadinessChecks(deps.db, migrationsDir),
    service: 'billing',
    logger: deps.logger,
    internalSecret,
    routers: [planRoutes(deps), subscriptionRoutes(deps)],
    metrics,
  });
}
