import { loadConfigOrExit, requireRedisWhenRunningAlone, requireWhenRunningAlone } from '@acs/config';
import { createAmqpBus } from '@acs/bus';
import { createLogger } from '@acs/logger';
import { createSharedCache } from '@acs/cache';
import { keysConfigSchema } from './config.js';
import { startKeysService } from './service.js';
import { runStandalone } from '@acs/http';

// Standalone entry (containers): `node services/keys/dist/main.js`. Needs REDIS_URL (or REDIS_CLUSTER_NODES): the
// gateway reads key records from the same Redis, so an in-process cache makes no sense here. Needs AMQP_URL: key
// events go to the other services through RabbitMQ.
const config = loadConfigOrExit('keys', keysConfigSchema);
const logger = createLogger({ name: 'keys', level: config.LOG_LEVEL });
const redis = requireRedisWhenRunningAlone('keys', config);
const cache = createSharedCache(redis, { keyPrefix: config.REDIS_PREFIX, logger });
const amqpUrl = requireWhenRunningAlone('keys', 'AMQP_URL', config.AMQP_URL);
const bus = createAmqpBus({ url: amqpUrl, exchange: config.BUS_EXCHANGE, logger, connectionName: `keys-${process.pid}` });
await runStandalone(logger, 'keys service', 'keys', () => startKeysService(config, logger, cache, bus), [cache, bus]);
