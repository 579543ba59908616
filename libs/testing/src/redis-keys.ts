import { Redis } from 'ioredis';
import { testServerUrl } from './environment.js';

/** Removes every key a test wrote under its unique prefix. */
export async function deleteRedisKeys(prefix: string): Promise<void> {
  const redis = new Redis(testServerUrl('REDIS_URL'), { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
