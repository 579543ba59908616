import { loadConfigOrExit, requireWhenRunningAlone } from '@acs/config';
import { createLogger } from '@acs/logger';
import { createAmqpBus } from '@acs/bus';
import { runStandalone } from '@acs/http';
import { webhooksConfigSchema } from './config.js';
import { startWebhooksService } from './service.js';

// Standalone entry (containers): `node services/webhooks/dist/main.js`. Needs AMQP_URL: the events
// come from keys' and billing's outboxes over RabbitMQ.
const config = loadConfigOrExit('webhooks', webhooksConfigSchema);
const logger = createLogger({ name: 'webhooks', level: config.LOG_LEVEL });
const amqpUrl = requireWhenRunningAlone('webhooks', 'AMQP_URL', config.AMQP_URL);
const bus = createAmqpBus({ url: amqpUrl, exchange: config.BUS_EXCHANGE, logger, connectionName: `webhooks-${process.pid}` });
await runStandalone(logger, 'webhooks service', 'webhooks', () => startWebhooksService(config, logger, bus), [bus]);
