// What the embedded launcher and the tests use; the standalone entry is main.ts.
export { webhooksConfigSchema, type WebhooksConfig } from './config.js';
export { startWebhooksService, WEBHOOKS_MIGRATIONS_DIR, type WebhooksService, type WebhooksServiceOptions } from './service.js';
