import { loadConfigOrExit } from '@acs/config';
import { createLogger } from '@acs/logger';
import { runStandalone } from '@acs/http';
import { createAmqpBus } from '@acs/bus';
import { deviceConfigSchema } from './config.js';
import { startDeviceService } from './service.js';

// Standalone entry (containers): `node services/device/dist/main.js`. Needs CATALOG_URL.
const config = loadConfigOrExit('device', deviceConfigSchema);
const logger = createLogger({ name: 'device', level: config.LOG_LEVEL });
// With AMQP_URL it consumes user.deleted (issue 32): a deleted account's devices are erased.
const bus = config.AMQP_URL
  ? createAmqpBus({ url: config.AMQP_URL, exchange: config.BUS_EXCHANGE, logger, connectionName: `device-${process.pid}` })
  : null;
await runStandalone(logger, 'device service', 'device', () => startDeviceService(config, logger, bus ?? undefined), bus ? [bus] : []);
