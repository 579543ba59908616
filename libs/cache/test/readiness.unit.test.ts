import { describe, expect, it } from '@jest/globals';
import { cacheReadinessCheck } from '../src/readiness.js';

describe('cacheReadinessCheck', () => {
  it('says ok while the cache answers PING, and what is wrong when it does not', async () => {
    await expect(cacheReadinessCheck({ ping: async () => true }).cache()).resolves.toBe('ok');
    await expect(cacheReadinessCheck({ ping: async () => false }).cache()).resolves.toBe('not reachable');
  });
});
