import { describe, expect, it } from '@jest/globals';
import { createMemoryCache } from '@acs/cache';
import { describeCacheContract } from './cache-contract.js';

describeCacheContract('memory', async () => {
  // One clock for both caches so advance() expires entries in each without real waiting.
  let time = Date.parse('2030-01-01T00:00:00Z');
  const now = (): number => time;
  const cache = createMemoryCache({ now });
  const other = createMemoryCache({ now });
  return {
    cache,
    other,
    async advance(ms) {
      time += ms;
    },
    async teardown() {
      await Promise.all([cache.close(), other.close()]);
    },
  };
});

describe('memory cache', () => {
  it('rejects calls after close and reports not ready', async () => {
    const cache = createMemoryCache();
    await cache.set('k', 'v');
    await cache.close();
    await cache.close();
    await expect(cache.get('k')).rejects.toThrow('closed');
    await expect(cache.setIfNewer('k', 1, 'v', 60)).rejects.toThrow('closed');
    expect(await cache.ping()).toBe(false);
  });
});
