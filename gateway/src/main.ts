import { loadConfigOrExit, requireRedisWhenRunningAlone } from '@acs/config';
import { createLogger } from '@acs/logger';
import { createSharedCache } from '@acs/cache';
import { runStandalone } from '@acs/http';
import { gatewayConfigSchema } from './config.js';
import { startGateway } from './service.js';

// Standalone entry (containers): `node gateway/dist/main.js`.
const config = loadConfigOrExit('gateway', gatewayConfigSchema);
const logger = createLogger({ name: 'gateway', level: config.LOG_LEVEL });
const redis = requireRedisWhenRunningAlone('gateway', config);
const cache = createSharedCache(redis, { keyPrefix: config.REDIS_PREFIX, logger });
// The gateway hands its spans' context along explicitly (src/tracing): no AsyncLocalStorage on its hot path.
await runStandalone(logger, 'gateway', 'gateway', () => startGateway(config, logger, cache), [cache], { explicitContext: true });
