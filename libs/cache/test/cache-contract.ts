import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Cache } from '@acs/cache';

/** What the shared suite needs from an implementation. */
export interface CacheHarness {
  cache: Cache;
  /** A second cache that must not see `cache`'s keys (Redis: another keyPrefix; memory: another instance). */
  other: Cache;
  /** Lets `ms` milliseconds pass for TTLs (memory: moves the injected clock; Redis: really waits). */
  advance(ms: number): Promise<void>;
  teardown(): Promise<void>;
}

/**
 * The behaviour both implementations promise; run once per implementation so the in-process cache used in
 * embedded mode and unit tests cannot drift from Redis.
 */
export function describeCacheContract(name: string, setUp: () => Promise<CacheHarness>): void {
  describe(`${name}: Cache contract`, () => {
    let harness: CacheHarness;
    let cache: Cache;
    let keyCount = 0;
    // Every test uses fresh keys, so tests never depend on one another's leftovers.
    const key = (label: string): string => `${label}:${++keyCount}`;

    beforeAll(async () => {
      harness = await setUp();
      cache = harness.cache;
    });
    afterAll(async () => {
      await harness.teardown();
    });

    it('answers ping', async () => {
      expect(await cache.ping()).toBe(true);
    });

    it('gets, sets, overwrites and deletes', async () => {
      const k = key('plain');
      expect(await cache.get(k)).toBeNull();
      await cache.set(k, 'one');
      expect(await cache.get(k)).toBe('one');
      await cache.set(k, 'two', 60);
      expect(await cache.get(k)).toBe('two');
      await cache.del(k);
      expect(await cache.get(k)).toBeNull();
      await expect(cache.del(k)).resolves.toBeUndefined();
    });

    it('keeps values containing | and empty values intact', async () => {
      const raw = key('pipe');
      await cache.set(raw, 'a|b||c');
      expect(await cache.get(raw)).toBe('a|b||c');

      const versioned = key('pipe-versioned');
      expect(await cache.setIfNewer(versioned, 7, '{"scopes":"a|b"}|x', 60)).toBe(true);
      expect(await cache.getVersioned(versioned)).toEqual({ version: 7, value: '{"scopes":"a|b"}|x' });
      // The version is parsed up to the first | only, so a | in the value cannot fake a higher version.
      expect(await cache.setIfNewer(versioned, 6, 'older', 60)).toBe(false);
      expect(await cache.setIfNewer(versioned, 8, '', 60)).toBe(true);
      expect(await cache.getVersioned(versioned)).toEqual({ version: 8, value: '' });
    });

    it('stores a versioned entry as one `<version>|<value>` string', async () => {
      const k = key('encoding');
      await cache.setIfNewer(k, 42, 'payload', 60);
      expect(await cache.get(k)).toBe('42|payload');
    });

    it('orders versioned writes: absent accepted, older and equal refused, newer accepted', async () => {
      const k = key('versioned');
      expect(await cache.getVersioned(k)).toBeNull();
      expect(await cache.setIfNewer(k, 5, 'v5', 60)).toBe(true);
      expect(await cache.setIfNewer(k, 4, 'v4', 60)).toBe(false);
      expect(await cache.getVersioned(k)).toEqual({ version: 5, value: 'v5' });
      expect(await cache.setIfNewer(k, 5, 'v5-again', 60)).toBe(false);
      expect(await cache.getVersioned(k)).toEqual({ version: 5, value: 'v5' });
      expect(await cache.setIfNewer(k, 6, 'v6', 60)).toBe(true);
      expect(await cache.getVersioned(k)).toEqual({ version: 6, value: 'v6' });
      // Versions compare as numbers, not strings ("10" < "9" as text).
      expect(await cache.setIfNewer(k, 10, 'v10', 60)).toBe(true);
      expect(await cache.setIfNewer(k, 9, 'v9', 60)).toBe(false);
      expect(await cache.getVersioned(k)).toEqual({ version: 10, value: 'v10' });
    });

    it('accepts version 0 on an absent entry and a versioned write over a plain value', async () => {
      const zero = key('zero');
      expect(await cache.setIfNewer(zero, 0, 'first', 60)).toBe(true);
      expect(await cache.setIfNewer(zero, 0, 'second', 60)).toBe(false);

      const plain = key('plain-then-versioned');
      await cache.set(plain, 'abc|def');
      expect(await cache.getVersioned(plain)).toBeNull();
      expect(await cache.setIfNewer(plain, 1, 'v1', 60)).toBe(true);
      expect(await cache.getVersioned(plain)).toEqual({ version: 1, value: 'v1' });
    });

    it('ends concurrent versioned writes with the highest version', async () => {
      const k = key('race');
      const versions = Array.from({ length: 50 }, (_, i) => i + 1);
      // A fixed shuffle: the highest version arrives neither first nor last.
      const order = [...versions].sort((a, b) => ((a * 37) % 50) - ((b * 37) % 50));
      const results = await Promise.all(order.map((v) => cache.setIfNewer(k, v, `value-${v}`, 60)));
      expect(await cache.getVersioned(k)).toEqual({ version: 50, value: 'value-50' });
      expect(results[order.indexOf(50)]).toBe(true);
      // Once 50 is stored nothing else may be written.
      expect(results.slice(order.indexOf(50) + 1).every((written) => !written)).toBe(true);
    });

    it('reads several keys in one call, with misses as null and order kept', async () => {
      const [a, b, c] = [key('multi'), key('multi'), key('multi')];
      await cache.set(a, 'A');
      await cache.set(c, 'C');
      expect(await cache.mget([a, b, c])).toEqual(['A', null, 'C']);
      expect(await cache.mget([])).toEqual([]);

      const [va, vb, vc, plain] = [key('mv'), key('mv'), key('mv'), key('mv')];
      await cache.setIfNewer(va, 1, 'one|1', 60);
      await cache.setIfNewer(vc, 3, 'three', 60);
      await cache.set(plain, 'not versioned');
      expect(await cache.mgetVersioned([va, vb, vc, plain])).toEqual([
        { version: 1, value: 'one|1' },
        null,
        { version: 3, value: 'three' },
        null,
      ]);
      expect(await cache.mgetVersioned([])).toEqual([]);
    });

    it('counts with a TTL set when the counter is created', async () => {
      const k = key('counter');
      expect(await cache.incrWithTtl(k, 60)).toEqual({ count: 1, ttlSeconds: 60 });
      const second = await cache.incrWithTtl(k, 60);
      expect(second.count).toBe(2);
      expect(second.ttlSeconds).toBeGreaterThan(0);
      expect(second.ttlSeconds).toBeLessThanOrEqual(60);
      // A later call with another window does not move the expiry of the running window.
      const third = await cache.incrWithTtl(k, 3600);
      expect(third.count).toBe(3);
      expect(third.ttlSeconds).toBeLessThanOrEqual(60);
      expect(await cache.get(k)).toBe('3');
      expect((await cache.incrWithTtl(key('counter'), 60)).count).toBe(1);
    });

    it('refuses to count a value that is not an integer', async () => {
      const k = key('not-a-counter');
      await cache.set(k, 'abc');
      await expect(cache.incrWithTtl(k, 60)).rejects.toThrow();
    });

    it('expires entries, versioned entries and counter windows', async () => {
      const plain = key('ttl-plain');
      const versioned = key('ttl-versioned');
      const persisted = key('ttl-cleared');
      const counter = key('ttl-counter');
      await cache.set(plain, 'short', 1);
      await cache.setIfNewer(versioned, 5, 'v5', 1);
      await cache.set(persisted, 'short', 1);
      await cache.set(persisted, 'kept'); // a set without TTL clears the previous expiry
      expect(await cache.incrWithTtl(counter, 1)).toEqual({ count: 1, ttlSeconds: 1 });

      await harness.advance(600);
      expect(await cache.get(plain)).toBe('short');
      // Fixed window: this increment does not extend the expiry.
      expect(await cache.incrWithTtl(counter, 1)).toEqual({ count: 2, ttlSeconds: 1 });

      await harness.advance(600);
      expect(await cache.get(plain)).toBeNull();
      expect(await cache.getVersioned(versioned)).toBeNull();
      expect(await cache.mget([plain, persisted])).toEqual([null, 'kept']);
      expect(await cache.incrWithTtl(counter, 1)).toEqual({ count: 1, ttlSeconds: 1 });
      // An expired versioned entry is absent, so even an older version is accepted again.
      expect(await cache.setIfNewer(versioned, 1, 'v1', 60)).toBe(true);
    });

    it('keeps caches in different namespaces apart', async () => {
      const k = key('shared-name');
      await harness.cache.set(k, 'mine');
      expect(await harness.other.get(k)).toBeNull();
      await harness.other.set(k, 'theirs');
      expect(await harness.cache.get(k)).toBe('mine');

      const v = key('shared-versioned');
      await harness.cache.setIfNewer(v, 9, 'mine', 60);
      expect(await harness.other.setIfNewer(v, 1, 'theirs', 60)).toBe(true);
      expect(await harness.cache.getVersioned(v)).toEqual({ version: 9, value: 'mine' });

      const c = key('shared-counter');
      await harness.cache.incrWithTtl(c, 60);
      expect((await harness.other.incrWithTtl(c, 60)).count).toBe(1);
    });

    it('rejects TTLs and versions it cannot store faithfully', async () => {
      const k = key('invalid');
      await expect(cache.set(k, 'v', 0)).rejects.toThrow(RangeError);
      await expect(cache.set(k, 'v', 1.5)).rejects.toThrow(RangeError);
      await expect(cache.setIfNewer(k, -1, 'v', 60)).rejects.toThrow(RangeError);
      await expect(cache.setIfNewer(k, 1.5, 'v', 60)).rejects.toThrow(RangeError);
      await expect(cache.setIfNewer(k, Number.NaN, 'v', 60)).rejects.toThrow(RangeError);
      await expect(cache.setIfNewer(k, 1, 'v', 0)).rejects.toThrow(RangeError);
      await expect(cache.incrWithTtl(k, -5)).rejects.toThrow(RangeError);
      expect(await cache.get(k)).toBeNull();
    });
  });
}
