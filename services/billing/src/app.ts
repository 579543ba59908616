import type Koa from 'koa';
import { Router, addProbeRoutes, createHttpApp, type AppState } from '@acs/http';
import { pendingMigrations } from '@acs/db';
import type { BillingDeps } from './domain/deps.js';
import { planRoutes } from './routes/plan-routes.js';
import { subscriptionRoutes } from './routes/subscription-routes.js';

export interface BillingAppOptions {
  deps: BillingDeps;
  internalSecret: string;
  migrationsDir: string;
}

/**
 * Readiness covers the database only: subscriptions are accepted while the broker is away (the
 * outbox keeps their events), so a broker outage must not take billing out of the load balancer.
 */
export function buildBillingApp({ deps, internalSecret, migrationsDir }: BillingAppOptions): Koa<AppState> {
  const probes = new Router<AppState>();
  addProbeRoutes(probes, {
    database: async () => (await deps.db.ping(), 'ok'),
    migrations: async () => {
      const pending = await pendingMigrations(deps.db, migrationsDir);
      return pending.length === 0 ? 'ok' : `pending: ${pending.join(', ')}`;
    },
  });
  return createHttpApp({ logger: deps.logger, internalSecret, routers: [probes, planRoutes(deps), subscriptionRoutes(deps)] });
}
