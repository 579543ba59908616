import { loadConfigOrExit, requireWhenRunningAlone } from '@acs/config';
import { createLogger } from '@acs/logger';
import { createAmqpBus } from '@acs/bus';
import { stopOnSignals } from '@acs/http';
import { billingConfigSchema } from './config.js';
import { startBillingService } from './service.js';

// Standalone entry (containers): `node services/billing/dist/main.js`. Needs AMQP_URL: identity
// consumes the events from RabbitMQ, so an in-process bus makes no sense here.
const config = loadConfigOrExit('billing', billingConfigSchema);
const logger = createLogger({ name: 'billing', level: config.LOG_LEVEL });
const amqpUrl = requireWhenRunningAlone('billing', 'AMQP_URL', config.AMQP_URL);
const bus = createAmqpBus({ url: amqpUrl, exchange: config.BUS_EXCHANGE, logger, connectionName: `billing-${process.pid}` });
try {
  const service = await startBillingService(config, logger, bus);
  stopOnSignals(logger, async () => {
    await service.close();
    await bus.close();
  });
} catch (err) {
  logger.fatal({ err }, 'billing service failed to start');
  await bus.close().catch(() => undefined);
  process.exit(1);
}
