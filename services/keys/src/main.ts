import { loadConfigOrExit } from '@acs/config';
import { createLogger } from '@acs/logger';
import { createRedisCache } from '@acs/cache';
import { keysConfigSchema } from './config.js';
import { startKeysService } from './service.js';
import { stopOnSignals } from '@acs/http';

// Standalone entry (containers): `node services/keys/dist/main.js`. Needs REDIS_URL: the
// gateway reads key records from the same Redis, so an in-process cache makes no sense here.
const config = loadConfigOrExit('keys', keysConfigSchema);
const logger = createLogger({ name: 'keys', level: config.LOG_LEVEL });
if (!config.REDIS_URL) {
  process.stderr.write('keys: invalid configuration\n  REDIS_URL: required when the service runs alone (npm start runs the embedded mode)\n');
  process.exit(1);
}
const cache = createRedisCache({ url: config.REDIS_URL, keyPrefix: config.REDIS_PREFIX, logger });
try {
  const service = await startKeysService(config, logger, cache);
  stopOnSignals(logger, async () => {
    await service.close();
    await cache.close();
  });
} catch (err) {
  logger.fatal({ err }, 'keys service failed to start');
  process.exit(1);
}
