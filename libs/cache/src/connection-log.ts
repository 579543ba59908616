import type { Cluster, Redis } from 'ioredis';
import type { Logger } from '@acs/logger';

/**
 * Logs connection trouble once per outage. ioredis emits `error` on every failed reconnect (several per second
 * while Redis is down); one line when the outage starts and one when it ends is what an operator needs, the
 * rest goes to debug. Having a listener at all is also what keeps an `error` event from crashing the process.
 */
export function logConnectionEvents(redis: Redis | Cluster, logger: Logger | undefined): void {
  let failing = false;
  redis.on('error', (err: Error) => {
    if (!failing) {
      failing = true;
      if (logger) logger.error({ err }, 'redis connection error: cache calls fail until it recovers');
      else console.error(`[@acs/cache] redis connection error: cache calls fail until it recovers: ${err.message}`);
    } else {
      logger?.debug({ err }, 'redis still unavailable');
    }
  });
  redis.on('ready', () => {
    if (!failing) return;
    failing = false;
    if (logger) logger.info('redis connection restored');
    else console.error('[@acs/cache] redis connection restored');
  });
}
