import { loadConfigOrExit, requireRedisWhenRunningAlone } from '@acs/config';
import { createLogger } from '@acs/logger';
import { createSharedCache } from '@acs/cache';
import { keysConfigSchema } from './config.js';
import { startKeysService } from './service.js';
import { runStandalone } from '@acs/http';

// Standalone entry (containers): `node services/keys/dist/main.js`. Needs REDIS_URL (or REDIS_CLUSTER_NODES): the
// gateway reads key records from the same Redis, so an in-process cache makes no sense here.
const config = loadConfigOrExit('keys', keysConfigSchema);
const logger = createLogger({ name: 'keys', level: config.LOG_LEVEL });
const redis = requireRedisWhenRunningAlone('keys', config);
const cache = createSharedCache(redis, { keyPrefix: config.REDIS_PREFIX, logger });
await runStandalone(logger, 'keys service', 'keys', () => startKeysService(config, logger, cache), [cache]);
