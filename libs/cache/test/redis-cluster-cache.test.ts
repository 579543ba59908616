import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Cluster } from 'ioredis';
import { createRedisClusterCache, scriptOf, type Cache } from '@acs/cache';
import { isDependencyUnavailable } from '@acs/errors';
import { createLogger } from '@acs/logger';
import {
  clusterNodeClient,
  deleteClusterKeys,
  ensureTestCluster,
  rawClusterClient,
  testClusterNodes,
  uniqueName,
  unusedPort,
} from '@acs/testing';
import { describeCacheContract } from './cache-contract.js';

/*
 * The Cache on the real Redis Cluster of scripts/start-redis-cluster.sh (3 primaries, 3 replicas):
 * the same contract as the in-process cache and the single Redis, then what only a cluster has.
 */
const FAIL_FAST_MS = 2_500;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const silent = createLogger({ name: 'cluster-cache-test', level: 'silent' });

beforeAll(async () => {
  await ensureTestCluster();
}, 90_000);

describeCacheContract('redis cluster', async () => {
  const base = uniqueName('acs_cluster_cache_test');
  const cache = createRedisClusterCache({ nodes: testClusterNodes(), keyPrefix: `${base}:a:`, logger: silent });
  const other = createRedisClusterCache({ nodes: testClusterNodes(), keyPrefix: `${base}:b:`, logger: silent });
  return {
    cache,
    other,
    advance: sleep,
    async teardown() {
      await Promise.all([cache.close(), other.close()]);
      await deleteClusterKeys(`${base}:`);
    },
  };
});

describe('redis cluster cache', () => {
  const prefix = `${uniqueName('acs_cluster_cache')}:`;
  let cache: Cache;
  let raw: Cluster;

  beforeAll(() => {
    cache = createRedisClusterCache({ nodes: testClusterNodes(), keyPrefix: prefix, logger: silent });
    raw = rawClusterClient();
  });
  afterAll(async () => {
    await cache.close();
    raw.disconnect();
    await deleteClusterKeys(prefix);
  });

  /** Which primary holds a key (its address), as the cluster itself says. */
  async function primaryOf(key: string): Promise<string> {
    const slot = (await raw.cluster('KEYSLOT', key)) as number;
    const ranges = (await raw.cluster('SLOTS')) as unknown as [number, number, [string, number]][];
    const range = ranges.find(([first, last]) => slot >= first && slot <= last);
    return `${range?.[2][0]}:${range?.[2][1]}`;
  }

  it('reads keys that live on different primaries in one call, in order', async () => {
    const keys = Array.from({ length: 12 }, (_, i) => `spread:${i}`);
    await Promise.all(keys.map((key, i) => cache.setIfNewer(key, i + 1, `value-${i}`, 60)));
    const primaries = new Set(await Promise.all(keys.map((key) => primaryOf(`${prefix}${key}`))));
    expect(primaries.size).toBe(3);
    const entries = await cache.mgetVersioned([...keys, 'spread:missing']);
    expect(entries).toEqual([...keys.map((_, i) => ({ version: i + 1, value: `value-${i}` })), null]);
  });

  it('runs a script on keys that share a hash tag, and Redis refuses keys of different slots', async () => {
    const script = scriptOf(
      "redis.call('SET', KEYS[1], ARGV[1]); redis.call('SET', KEYS[2], ARGV[1]); return { redis.call('GET', KEYS[1]), redis.call('GET', KEYS[2]) }",
    );
    expect(await cache.evalScript!(script, ['one:{tagged}', 'two:{tagged}'], ['x'])).toEqual(['x', 'x']);
    // Without a shared tag the keys hash apart: refused (by the client, else CROSSSLOT), never a silent half-write.
    await expect(cache.evalScript!(script, ['one:a', 'two:b'], ['x'])).rejects.toThrow(/CROSSSLOT|same slot/);
    expect(await cache.get('one:a')).toBeNull();
  });

  it('setIfAbsentOrGet on the primary of its key: sets once (null), then answers the value it holds', async () => {
    const keys = Array.from({ length: 6 }, (_, i) => `claim:${i}`);
    expect(await Promise.all(keys.map((key) => cache.setIfAbsentOrGet!(key, `first-${key}`, 5_000)))).toEqual(keys.map(() => null));
    expect(await Promise.all(keys.map((key) => cache.setIfAbsentOrGet!(key, 'second', 5_000)))).toEqual(keys.map((key) => `first-${key}`));
    const ttl = await raw.pttl(`${prefix}claim:0`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(5_000);
  });

  it("has a changed record on the primary's replica by the time setIfNewer and del resolve", async () => {
    const key = 'replicated';
    const full = `${prefix}${key}`;
    // The replica of this key's primary: ROLE on the primary lists it.
    const [host, port] = (await primaryOf(full)).split(':');
    const primaryClient = clusterNodeClient({ host: host!, port: Number(port) });
    await primaryClient.connect();
    const role = (await primaryClient.role()) as [string, number, [string, string, string][]];
    await primaryClient.quit();
    expect(role[2].length).toBeGreaterThan(0);
    const replica = clusterNodeClient({ host: role[2][0]![0], port: Number(role[2][0]![1]) });
    await replica.connect();
    try {
      await replica.readonly();
      for (let version = 1; version <= 20; version++) {
        expect(await cache.setIfNewer(key, version, `v${version}`, 60)).toBe(true);
        // Read at once, without waiting: WAIT made sure the replica already has it.
        expect(await replica.get(full)).toBe(`${version}|v${version}`);
      }
      await cache.del(key);
      expect(await replica.get(full)).toBeNull();
    } finally {
      replica.disconnect();
    }
  });

  it("serves the gateway's per-request exchange: reads and counters on two primaries, one slot per group", async () => {
    // A user entry on another primary than the key's, so the exchange needs two (in one turn, one write each).
    let user = 0;
    while ((await primaryOf(`${prefix}user:{${user}}`)) === (await primaryOf(`${prefix}key:{k1}`))) user++;
    await cache.set('key:{k1}', '3|key-record');
    await cache.set('count:{k1}:old', '7');
    await cache.set(`user:{${user}}`, '5|user-record');
    const reads = cache.requestReads!;
    expect(await reads.exchange([{ reads: ['key:{k1}'], increments: [] }])).toEqual([{ values: ['3|key-record'], counts: [] }]);
    const both = [
      { reads: ['key:{k1}', 'count:{k1}:old', 'count:{k1}:none'], increments: ['count:{k1}:now'] },
      { reads: [`user:{${user}}`], increments: [`quota:{${user}}:m`] },
    ];
    expect(await reads.exchange(both)).toEqual([
      { values: ['3|key-record', '7', null], counts: [1] },
      { values: ['5|user-record'], counts: [1] },
    ]);
    expect((await reads.exchange(both)).map((slot) => slot.counts)).toEqual([[2], [2]]);
    reads.decrement(['count:{k1}:now', `quota:{${user}}:m`]);
    reads.expireAt('count:{k1}:now', Date.now() + 60_000);
    expect(
      await reads.exchange([
        { reads: ['count:{k1}:now'], increments: [] },
        { reads: [`quota:{${user}}:m`], increments: [] },
      ]),
    ).toEqual([
      { values: ['1'], counts: [] },
      { values: ['1'], counts: [] },
    ]);
    expect(await raw.pttl(`${prefix}count:{k1}:now`)).toBeGreaterThan(0);
  });

  it('spreads concurrent reads over the primaries and answers them all', async () => {
    await Promise.all(Array.from({ length: 30 }, (_, i) => cache.set(`many:${i}`, String(i))));
    const reads = await Promise.all(Array.from({ length: 600 }, (_, i) => cache.get(`many:${i % 30}`)));
    expect(reads.every((value, i) => value === String(i % 30))).toBe(true);
  });

  it("refuses a key prefix with a brace (it would become every key's hash tag)", () => {
    expect(() => createRedisClusterCache({ nodes: testClusterNodes(), keyPrefix: 'acs{x}:' })).toThrow(/hash tag/);
  });
});

describe('redis cluster cache when no node answers (fail closed)', () => {
  it('rejects quickly, as "unavailable" (503 for a service), and ping says false', async () => {
    const port = await unusedPort();
    const cache = createRedisClusterCache({ nodes: [{ host: '127.0.0.1', port }], logger: silent });
    try {
      for (const call of [() => cache.get('k'), () => cache.mgetVersioned(['a', 'b']), () => cache.setIfNewer('k', 1, 'v', 60)]) {
        const started = performance.now();
        const error = await call().then(
          () => null,
          (err: unknown) => err,
        );
        expect(error).toBeInstanceOf(Error);
        expect(isDependencyUnavailable(error)).toBe(true);
        expect(performance.now() - started).toBeLessThan(FAIL_FAST_MS);
      }
      expect(await cache.ping()).toBe(false);
    } finally {
      await cache.close();
    }
  });
});
