import type Koa from 'koa';
import { createServiceApp, type AppState, type ServiceAppOptions } from '@acs/http';
import { databaseReadinessChecks } from '@acs/db';
import type { BillingDeps } from './domain/deps.js';
import { planRoutes } from './routes/plan-routes.js';
import { subscriptionRoutes } from './routes/subscription-routes.js';

export type BillingAppOptions = ServiceAppOptions<BillingDeps>;

/**
 * Readiness covers the database only: subscriptions are accepted while the broker is away (the
 * outbox keeps their events), so a broker outage must not take billing out of the load balancer.
 */
export function buildBillingApp(options: BillingAppOptions): Koa<AppState> {
  const { deps, migrationsDir } = options;
  return createServiceApp('billing', options, databaseReadinessChecks(deps.db, migrationsDir), [
    planRoutes(deps),
    subscriptionRoutes(deps),
  ]);
}
