import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import { createRedisCache, type Cache } from '@acs/cache';
import { createLogger } from '@acs/logger';
import { listenOnLoopback, startFaultProxy, testServerUrl, uniqueName, unusedPort } from '@acs/testing';
import { describeCacheContract } from './cache-contract.js';

const REDIS_URL = testServerUrl('REDIS_URL');
/** "Rejects quickly" in numbers: well under the gateway's patience, far from hanging forever. */
const FAIL_FAST_MS = 2_500;

/** A client without prefix, to look at what the caches really wrote and to clean up after them. */
function rawClient(): Redis {
  return new Redis(REDIS_URL, { maxRetriesPerRequest: 1, connectTimeout: 1_000 });
}

async function deleteKeys(redis: Redis, pattern: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
    if (keys.length > 0) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

async function elapsedMs(action: () => Promise<unknown>): Promise<{ ms: number; error: unknown }> {
  const start = performance.now();
  try {
    await action();
    return { ms: performance.now() - start, error: undefined };
  } catch (error) {
    return { ms: performance.now() - start, error };
  }
}

function captureLogs(): { lines: string[]; logger: ReturnType<typeof createLogger> } {
  const lines: string[] = [];
  const logger = createLogger({ name: 'cache-test', level: 'info', destination: { write: (line: string) => lines.push(line) } });
  return { lines, logger };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describeCacheContract('redis', async () => {
  const base = uniqueName('acs_cache_test');
  const cache = createRedisCache({ url: REDIS_URL, keyPrefix: `${base}:a:` });
  const other = createRedisCache({ url: REDIS_URL, keyPrefix: `${base}:b:` });
  return {
    cache,
    other,
    advance: sleep,
    async teardown() {
      await Promise.all([cache.close(), other.close()]);
      const raw = rawClient();
      await deleteKeys(raw, `${base}:*`);
      await raw.quit();
    },
  };
});

describe('redis cache', () => {
  const base = uniqueName('acs_cache_redis');
  const prefix = `${base}:`;
  let raw: Redis;
  let cache: Cache;

  beforeAll(() => {
    raw = rawClient();
    cache = createRedisCache({ url: REDIS_URL, keyPrefix: prefix });
  });
  afterAll(async () => {
    await cache.close();
    await deleteKeys(raw, `${base}*`);
    await raw.quit();
  });

  it('applies the key prefix to every key, script KEYS included', async () => {
    await cache.set('plain', 'v');
    await cache.setIfNewer('versioned', 3, 'v3', 60);
    await cache.incrWithTtl('counter', 60);
    expect(await raw.mget(`${prefix}plain`, `${prefix}versioned`, `${prefix}counter`)).toEqual(['v', '3|v3', '1']);
    expect(await raw.exists('plain', 'versioned', 'counter')).toBe(0);
    // Reads go through the prefix too.
    await raw.set(`${prefix}written-outside`, '4|outside');
    expect(await cache.getVersioned('written-outside')).toEqual({ version: 4, value: 'outside' });
  });

  it('sets Redis expiries in seconds on versioned entries and counters', async () => {
    await cache.setIfNewer('expiring', 1, 'v', 60);
    await cache.incrWithTtl('window', 30);
    const [entryTtl, counterTtl] = await Promise.all([raw.pttl(`${prefix}expiring`), raw.pttl(`${prefix}window`)]);
    expect(entryTtl).toBeGreaterThan(58_000);
    expect(entryTtl).toBeLessThanOrEqual(60_000);
    expect(counterTtl).toBeGreaterThan(28_000);
    expect(counterTtl).toBeLessThanOrEqual(30_000);
  });

  it('setIfAbsentOrGet: the first call sets (null, with the expiry in ms), the next ones answer the value and change nothing', async () => {
    expect(await cache.setIfAbsentOrGet!('claim', 'first', 5_000)).toBeNull();
    expect(await cache.setIfAbsentOrGet!('claim', 'second', 60_000)).toBe('first');
    expect(await raw.get(`${prefix}claim`)).toBe('first');
    const ttl = await raw.pttl(`${prefix}claim`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(5_000);
    // Concurrent claims of one new key: exactly one sets it.
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => cache.setIfAbsentOrGet!('raced', `claimant-${i}`, 5_000)));
    expect(answers.filter((answer) => answer === null)).toHaveLength(1);
    expect(new Set(answers.filter((answer) => answer !== null))).toEqual(new Set([await raw.get(`${prefix}raced`)]));
  });

  it('gives a counter written without expiry a window instead of counting forever', async () => {
    await raw.set(`${prefix}stuck`, '7');
    expect(await cache.incrWithTtl('stuck', 10)).toEqual({ count: 8, ttlSeconds: 10 });
    expect(await raw.pttl(`${prefix}stuck`)).toBeGreaterThan(0);
  });

  it('keeps the highest version when two clients race', async () => {
    const second = createRedisCache({ url: REDIS_URL, keyPrefix: prefix });
    try {
      const writes: Promise<boolean>[] = [];
      for (let v = 1; v <= 40; v++) {
        const client = v % 2 === 0 ? cache : second;
        // Descending on one client, ascending on the other, so both orders meet on the server.
        writes.push(client.setIfNewer('raced', v % 2 === 0 ? v : 41 - v, `from-${v}`, 60));
      }
      await Promise.all(writes);
      expect((await cache.getVersioned('raced'))?.version).toBe(40);
    } finally {
      await second.close();
    }
  });

  it('shares one round trip between concurrent reads (auto-pipelining)', async () => {
    await cache.set('pipelined', 'x');
    const reads = await Promise.all(Array.from({ length: 200 }, () => cache.get('pipelined')));
    expect(new Set(reads)).toEqual(new Set(['x']));
  });

  it('rejects calls after close; close is idempotent', async () => {
    const closing = createRedisCache({ url: REDIS_URL, keyPrefix: prefix });
    expect(await closing.ping()).toBe(true);
    await Promise.all([closing.close(), closing.close()]);
    await expect(closing.get('plain')).rejects.toThrow();
    expect(await closing.ping()).toBe(false);
  });
});

describe('redis cache when Redis is unavailable (fail closed)', () => {
  it('rejects quickly when nothing listens on the port, and logs the error', async () => {
    // A port that was free a moment ago: connections to it are refused.
    const port = await unusedPort();

    const { lines, logger } = captureLogs();
    const cache = createRedisCache({ url: `redis://127.0.0.1:${port}`, keyPrefix: 'unused:', logger });
    try {
      for (const call of [
        () => cache.get('k'),
        () => cache.mgetVersioned(['a', 'b']),
        () => cache.setIfNewer('k', 1, 'v', 60),
        () => cache.incrWithTtl('k', 60),
      ]) {
        const { ms, error } = await elapsedMs(call);
        expect(error).toBeInstanceOf(Error);
        expect(ms).toBeLessThan(FAIL_FAST_MS);
      }
      const ping = await elapsedMs(() => cache.ping().then((ok) => expect(ok).toBe(false)));
      expect(ping.error).toBeUndefined();
      expect(ping.ms).toBeLessThan(FAIL_FAST_MS);

      // Logged once for the outage, not once per reconnect attempt.
      const errors = lines.map((line) => JSON.parse(line) as { level: string; msg: string }).filter((line) => line.level === 'error');
      expect(errors).toHaveLength(1);
      expect(errors[0]?.msg).toMatch(/redis connection error/);
    } finally {
      await cache.close();
    }
  });

  it('rejects quickly when the server accepts connections but never answers', async () => {
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => {});
    });
    const port = await listenOnLoopback(silent);
    const { logger } = captureLogs();
    const cache = createRedisCache({ url: `redis://127.0.0.1:${port}`, logger });
    try {
      const first = await elapsedMs(() => cache.get('k'));
      expect(first.error).toBeInstanceOf(Error);
      expect(first.ms).toBeLessThan(FAIL_FAST_MS);
      const batch = await elapsedMs(() => Promise.all([cache.get('k'), cache.getVersioned('k'), cache.mget(['a'])]));
      expect(batch.error).toBeInstanceOf(Error);
      expect(batch.ms).toBeLessThan(FAIL_FAST_MS);
    } finally {
      await cache.close();
      for (const socket of sockets) socket.destroy();
      await closeServer(silent);
    }
  });

  it('fails during an outage and works again once Redis is back', async () => {
    const proxy = await startFaultProxy(REDIS_URL, 6379);
    const { lines, logger } = captureLogs();
    const keyPrefix = `${uniqueName('acs_cache_outage')}:`;
    const cache = createRedisCache({ url: proxy.url, keyPrefix, logger });
    const raw = rawClient();
    try {
      await cache.set('k', 'before');
      expect(await cache.get('k')).toBe('before');

      proxy.cut();
      const during = await elapsedMs(() => cache.get('k'));
      expect(during.error).toBeInstanceOf(Error);
      expect(during.ms).toBeLessThan(FAIL_FAST_MS);
      // The gateway's per-request read has its own connection: it fails just as fast.
      const duringRead = await elapsedMs(() => cache.mgetVersioned(['k']));
      expect(duringRead.error).toBeInstanceOf(Error);
      expect(duringRead.ms).toBeLessThan(FAIL_FAST_MS);
      expect(await cache.ping()).toBe(false);

      proxy.restore();
      const deadline = Date.now() + 5_000;
      while (!(await cache.ping()) && Date.now() < deadline) await sleep(100);
      expect(await cache.get('k')).toBe('before');
      let readBack: unknown = null;
      while (readBack === null && Date.now() < deadline) {
        readBack = await cache.mget(['k']).catch(() => null);
        if (readBack === null) await sleep(100);
      }
      expect(readBack).toEqual(['before']);
      const messages = lines.map((line) => (JSON.parse(line) as { msg: string }).msg);
      expect(messages).toContain('redis connection restored');
    } finally {
      await cache.close();
      await deleteKeys(raw, `${keyPrefix}*`);
      await raw.quit();
      await proxy.close();
    }
  });
});
