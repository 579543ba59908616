import type Koa from 'koa';
import { createServiceApp, type AppState, type ServiceAppOptions } from '@acs/http';
import { databaseReadinessChecks } from '@acs/db';
import type { WebhooksDeps } from './domain/deps.js';
import { webhookRoutes } from './routes/webhook-routes.js';

export type WebhooksAppOptions = ServiceAppOptions<WebhooksDeps>;

/**
 * Readiness covers the database only: endpoints can be managed while the broker is away (events
 * wait in the publishers' outboxes and in this service's queue), and deliveries go on from the table.
 */
export function buildWebhooksApp(options: WebhooksAppOptions): Koa<AppState> {
  const { deps, migrationsDir } = options;
  return createServiceApp('webhooks', options, databaseReadinessChecks(deps.db, migrationsDir), [webhookRoutes(deps)]);
}
