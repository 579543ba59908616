import { loadConfigOrExit, requireRedisWhenRunningAlone } from '@acs/config';
import { createLogger } from '@acs/logger';
import { createSharedCache } from '@acs/cache';
import { runStandalone } from '@acs/http';
import { identityConfigSchema } from './config.js';
import { startIdentityService } from './service.js';

// Standalone entry (containers): `node services/identity/dist/main.js`. Needs REDIS_URL (or REDIS_CLUSTER_NODES): the
// gateway reads the authorization records from the same Redis, so an in-process cache makes no
// sense here. bcrypt hashes run on libuv's pool: UV_THREADPOOL_SIZE (default 4) bounds how many
// logins are checked at once.
const config = loadConfigOrExit('identity', identityConfigSchema);
const logger = createLogger({ name: 'identity', level: config.LOG_LEVEL });
const redis = requireRedisWhenRunningAlone('identity', config);
if (!config.JWT_SIGNING_KEY) {
  logger.warn('JWT_SIGNING_KEY is not set: using the key kept under DATA_DIR. Replicas must share one key: set JWT_SIGNING_KEY on each.');
}
const cache = createSharedCache(redis, { keyPrefix: config.REDIS_PREFIX, logger });
await runStandalone(logger, 'identity service', 'identity', () => startIdentityService(config, logger, cache), [cache]);
