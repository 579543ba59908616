import type Koa from 'koa';
import { createHttpApp, type AppState, type HttpAppOptions } from '@acs/http';
import { databaseReadinessChecks } from '@acs/db';
import type { Registry } from '@acs/metrics';
import type { WebhooksDeps } from './domain/deps.js';
import { webhookRoutes } from './routes/webhook-routes.js';

export interface WebhooksAppOptions {
  deps: WebhooksDeps;
  internalSecret: HttpAppOptions['internalSecret'];
  migrationsDir: string;
  metrics: Registry;
}

/**
 * Readiness covers the database only: endpoints can be managed while the broker is away (events
 * wait in the publishers' outboxes and in this service's queue), and deliveries go on from the table.
 */
export function buildWebhooksApp({ deps, internalSecret, migrationsDir, metrics }: WebhooksAppOptions): Koa<AppState> {
  return createHttpApp({
    readiness: databaseReadinessChecks(deps.db, migrationsDir),
    service: 'webhooks',
    logger: deps.logger,
    internalSecret,
    routers: [webhookRoutes(deps)],
    metrics,
  });
}
