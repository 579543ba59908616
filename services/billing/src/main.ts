import { loadConfigOrExit, requireWhenRunningAlone } from '@acs/config';
import { createLogger } from '@acs/logger';
import { createAmqpBus } from '@acs/bus';
import { runStandalone } from '@acs/http';
import { billingConfigSchema } from './config.js';
import { startBillingService } from './service.js';

// Standalone entry (containers): `node services/billing/dist/main.js`. Needs AMQP_URL: identity
// consumes the events from RabbitMQ, so an in-process bus makes no sense here.
const config = loadConfigOrExit('billing', billingConfigSchema);
const logger = createLogger({ name: 'billing', level: config.LOG_LEVEL });
const amqpUrl = requireWhenRunningAlone('billing', 'AMQP_URL', config.AMQP_URL);
const bus = createAmqpBus({ url: amqpUrl, exchange: config.BUS_EXCHANGE, logger, connectionName: `billing-${process.pid}` });
await runStandalone(logger, 'billing service', 'billing', () => startBillingService(config, logger, bus), [bus]);
