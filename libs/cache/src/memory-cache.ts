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

/**
 * In-process cache with the same semantics as the Redis one (the embedded default and unit tests). Values are
 * stored in Redis's representation so `get` on a versioned key or a counter returns what Redis would return.
 */
export function createMemoryCache({ now = Date.now }: MemoryCacheOptions = {}): Cache {
  const entries = new Map<string, Entry>();
  let writesSinceSweep = 0;
  let closed = false;

  function assertOpen(): void {
    if (closed) throw new Error('Cache is closed');
  }

  function read(key: string): Entry | undefined {
    const entry = entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= now()) {
      entries.delete(key);
      return undefined;
    }
    return entry;
  }

  function write(key: string, value: string, expiresAt: number): void {
    entries.set(key, { value, expiresAt });
    if (++writesSinceSweep >= Math.max(SWEEP_MIN_WRITES, entries.size)) sweep();
  }

  function sweep(): void {
    writesSinceSweep = 0;
    const time = now();
    for (const [key, entry] of entries) {
      if (entry.expiresAt <= time) entries.delete(key);
    }
  }

  function readValues(keys: readonly string[]): (string | null)[] {
    const values = new Array<string | null>(keys.length);
    for (let i = 0; i < keys.length; i++) values[i] = read(keys[i]!)?.value ?? null;
    return values;
  }

  return {
    async get(key) {
      assertOpen();
      return read(key)?.value ?? null;
    },
    async mget(keys) {
      assertOpen();
      return readValues(keys);
    },
    async set(key, value, ttlSeconds) {
      assertOpen();
      if (ttlSeconds !== undefined) assertTtlSeconds(ttlSeconds);
      write(key, value, ttlSeconds === undefined ? Infinity : now() + ttlSeconds * 1000);
    },
    async del(key) {
      assertOpen();
      entries.delete(key);
    },
    async setIfNewer(key, version, value, ttlSeconds) {
      assertOpen();
      assertVersion(version);
      assertTtlSeconds(ttlSeconds);
      const current = parseVersioned(read(key)?.value);
      if (current !== null && current.version >= version) return false;
      write(key, encodeVersioned(version, value), now() + ttlSeconds * 1000);
      return true;
    },
    async getVersioned(key) {
      assertOpen();
      return parseVersioned(read(key)?.value);
    },
    async mgetVersioned(keys) {
      assertOpen();
      return parseVersionedList(readValues(keys));
    },
    async incrWithTtl(key, ttlSeconds) {
      assertOpen();
      assertTtlSeconds(ttlSeconds);
      const time = now();
      const entry = read(key);
      let count = 1;
      if (entry !== undefined) {
        // Same refusal as Redis INCR on a value that is not an integer.
        if (!INTEGER.test(entry.value) || !Number.isSafeInteger(Number(entry.value) + 1)) {
          throw new Error('ERR value is not an integer or out of range');
        }
        count = Number(entry.value) + 1;
      }
      // Fixed window: the expiry is set only when the counter has none, so increments never extend it.
      const expiresAt = entry === undefined || entry.expiresAt === Infinity ? time + ttlSeconds * 1000 : entry.expiresAt;
      write(key, String(count), expiresAt);
      return { count, ttlSeconds: Math.ceil((expiresAt - time) / 1000) };
    },
    async ping() {
      return !closed;
    },
    async close() {
      closed = true;
      entries.clear();
    },
  };
}
