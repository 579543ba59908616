import type { Cache } from './cache.js';
import { assertTtlSeconds, assertVersion } from './validation.js';
import { encodeVersioned, parseVersioned, parseVersionedList } from './versioned-entry.js';

export interface MemoryCacheOptions {
  /** Milliseconds since the epoch; tests inject a clock to expire entries without waiting. */
  now?: () => number;
}

interface Entry {
  /** Stored exactly as Redis would hold it (versioned entries encoded, counters as decimal strings). */
  value: string;
  /** Epoch ms; Infinity when the entry never expires. */
  expiresAt: number;
}

/*
 * Expired entries are dropped when read, and swept in bulk once the number of writes since the last sweep reaches
 * the map's size (at least SWEEP_MIN_WRITES): amortized O(1) per write, and throttling counters for clients that
 * never come back cannot pile up in a long-running embedded process.
 */
const SWEEP_MIN_WRITES = 1024;
const INTEGER = /^-?\d+$/;

/** The entries and their expiry times: an expired entry is dropped when read, all of them at a sweep. */
class ExpiringEntries {
  private readonly entries = new Map<string, Entry>();
  private writesSinceSweep = 0;
  readonly now: () => number;

  constructor(now: () => number) {
    this.now = now;
  }

  read(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  readValues(keys: readonly string[]): (string | null)[] {
    const values = new Array<string | null>(keys.length);
    for (let i = 0; i < keys.length; i++) values[i] = this.read(keys[i]!)?.value ?? null;
    return values;
  }

  write(key: string, value: string, expiresAt: number): void {
    this.entries.set(key, { value, expiresAt });
    if (++this.writesSinceSweep >= Math.max(SWEEP_MIN_WRITES, this.entries.size)) this.sweep();
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  private sweep(): void {
    this.writesSinceSweep = 0;
    const time = this.now();
    for (const [key, entry] of this.entries) {
      if (entry.expiresAt <= time) this.entries.delete(key);
    }
  }
}

/** Redis INCR with an expiry on a fixed window: the expiry is set only when the counter has none, so increments never extend it. */
function incrementWithTtl(store: ExpiringEntries, key: string, ttlSeconds: number): { count: number; ttlSeconds: number } {
  const time = store.now();
  const entry = store.read(key);
  let count = 1;
  if (entry !== undefined) {
    // Same refusal as Redis INCR on a value that is not an integer.
    if (!INTEGER.test(entry.value) || !Number.isSafeInteger(Number(entry.value) + 1)) {
      throw new Error('ERR value is not an integer or out of range');
    }
    count = Number(entry.value) + 1;
  }
  const expiresAt = entry === undefined || entry.expiresAt === Infinity ? time + ttlSeconds * 1000 : entry.expiresAt;
  store.write(key, String(count), expiresAt);
  return { count, ttlSeconds: Math.ceil((expiresAt - time) / 1000) };
}

/**
 * In-process cache with the same semantics as the Redis one (the embedded default and unit tests). Values are
 * stored in Redis's representation so `get` on a versioned key or a counter returns what Redis would return.
 */
export function createMemoryCache({ now = Date.now }: MemoryCacheOptions = {}): Cache {
  const store = new ExpiringEntries(now);
  let closed = false;

  function assertOpen(): void {
    if (closed) throw new Error('Cache is closed');
  }

  return {
    async get(key) {
      assertOpen();
      return store.read(key)?.value ?? null;
    },
    async mget(keys) {
      assertOpen();
      return store.readValues(keys);
    },
    async set(key, value, ttlSeconds) {
      assertOpen();
      if (ttlSeconds !== undefined) assertTtlSeconds(ttlSeconds);
      store.write(key, value, ttlSeconds === undefined ? Infinity : now() + ttlSeconds * 1000);
    },
    async del(key) {
      assertOpen();
      store.delete(key);
    },
    async setIfNewer(key, version, value, ttlSeconds) {
      assertOpen();
      assertVersion(version);
      assertTtlSeconds(ttlSeconds);
      const current = parseVersioned(store.read(key)?.value);
      if (current !== null && current.version >= version) return false;
      store.write(key, encodeVersioned(version, value), now() + ttlSeconds * 1000);
      return true;
    },
    async getVersioned(key) {
      assertOpen();
      return parseVersioned(store.read(key)?.value);
    },
    async mgetVersioned(keys) {
      assertOpen();
      return parseVersionedList(store.readValues(keys));
    },
    async incrWithTtl(key, ttlSeconds) {
      assertOpen();
      assertTtlSeconds(ttlSeconds);
      return incrementWithTtl(store, key, ttlSeconds);
    },
    async ping() {
      return !closed;
    },
    async close() {
      closed = true;
      store.clear();
    },
  };
}
