import { loadConfigOrExit, requireWhenRunningAlone } from '@acs/config';
import { createLogger } from '@acs/logger';
import { createRedisCache } from '@acs/cache';
import { keysConfigSchema } from './config.js';
import { startKeysService } from './service.js';
import { runStandalone } from '@acs/http';

// Standalone entry (containers): `node services/keys/dist/main.js`. Needs REDIS_URL: the
// gateway reads key records from the same Redis, so an in-process cache makes no sense here.
const config = loadConfigOrExit('keys', keysConfigSchema);
const logger = createLogger({ name: 'keys', level: config.LOG_LEVEL });
const redisUrl = requireWhenRunningAlone('keys', 'REDIS_URL', config.REDIS_URL);
const cache = createRedisCache({ url: redisUrl, keyPrefix: config.REDIS_PREFIX, logger });
await runStandalone(logger, 'keys service', 'keys', () => startKeysService(config, logger, cache), [cache]);
