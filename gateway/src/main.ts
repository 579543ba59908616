import { loadConfigOrExit } from '@acs/config';
import { createLogger } from '@acs/logger';
import { createRedisCache } from '@acs/cache';
import { stopOnSignals } from '@acs/http';
import { gatewayConfigSchema } from './config.js';
import { startGateway } from './service.js';

// Standalone entry (containers): `node gateway/dist/main.js`.
const config = loadConfigOrExit('gateway', gatewayConfigSchema);
const logger = createLogger({ name: 'gateway', level: config.LOG_LEVEL });
if (!config.REDIS_URL) {
  process.stderr.write('gateway: invalid configuration\n  REDIS_URL: required when the gateway runs alone (npm start runs the embedded mode)\n');
  process.exit(1);
}
const cache = createRedisCache({ url: config.REDIS_URL, keyPrefix: config.REDIS_PREFIX, logger });
try {
  const gateway = await startGateway(config, logger, cache);
  stopOnSignals(logger, async () => {
    await gateway.close();
    await cache.close();
  });
} catch (err) {
  logger.fatal({ err }, 'gateway failed to start');
  process.exit(1);
}
