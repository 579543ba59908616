import type { RespReply } from './resp-reader.js';

/** A Lua script and its SHA-1 (scriptOf), run as EVALSHA and as EVAL when Redis does not know it yet. */
export interface CacheScript {
  readonly source: string;
  readonly sha: string;
}

/** A value written by `setIfNewer`, read back with the version it was written at. */
export interface VersionedEntry {
  version: number;
  value: string;
}

/**
 * The cache the gateway reads on every request and the owning services write through (docs/architecture.md,
 * decision 3). Two implementations: Redis (`createRedisCache`) and in-process (`createMemoryCache`, the
 * embedded default); the contract tests run the same suite against both.
 *
 * Every call rejects when the store is unreachable: callers fail closed rather than serve stale data.
 * TTLs are whole seconds greater than 0; versions are non-negative safe integers.
 */
export interface Cache {
  get(key: string): Promise<string | null>;
  /** One round trip for all keys (the gateway reads key record and user authz record together). */
  mget(keys: readonly string[]): Promise<(string | null)[]>;
  /** Without `ttlSeconds` the entry never expires (and a previous expiry is cleared, as Redis SET does). */
  set(key: string, value: string, ttlSeconds?: number): Promise<void>;
  del(key: string): Promise<void>;
  /**
   * Versioned write: stores `value` only if no entry exists or the stored entry's version is lower than `version`.
   * Returns true if written. Used by write-through and by cache refills so that a slow refill carrying old data can
   * never overwrite a newer write-through. Atomic (a Lua script on Redis). An entry that is not a versioned one
   * counts as absent.
   */
  setIfNewer(key: string, version: number, value: string, ttlSeconds: number): Promise<boolean>;
  /** Reads a versioned entry written by setIfNewer; null for a miss or an entry that is not versioned. */
  getVersioned(key: string): Promise<VersionedEntry | null>;
  mgetVersioned(keys: readonly string[]): Promise<(VersionedEntry | null)[]>;
  /**
   * Counter with expiry set when the counter is created (fixed window), for throttling; returns the new count and
   * the TTL left in seconds (rounded up, so it can go straight into Retry-After).
   */
  incrWithTtl(key: string, ttlSeconds: number): Promise<{ count: number; ttlSeconds: number }>;
  /**
   * Redis only (absent on the in-process cache): runs a script that returns an array, on the connection and in
   * the same write as the gateway's per-request reads (docs/architecture.md, decision 9). Rejects like mget when the
   * store is unreachable.
   */
  evalScript?(script: CacheScript, keys: readonly string[], args: readonly string[]): Promise<RespReply[]>;
  /**
   * Redis only: `SET key value NX PX ttlMs GET` (Redis 7). Sets the key when it is absent and answers null;
   * otherwise leaves it as it is and answers what it holds. One command where a script would GET, then SET.
   */
  setIfAbsentOrGet?(key: string, value: string, ttlMs: number): Promise<string | null>;
  /**
   * Redis only: the gateway's per-request exchange (request-reads.ts). Absent on the in-process cache, where
   * the gateway reads with mget and counts limits in process.
   */
  requestReads?: RequestReads;
  /** True when the store answers; never rejects (readiness probes call it). */
  ping(): Promise<boolean>;
  /** Idempotent. Calls made after close reject. */
  close(): Promise<void>;
}

/** One request's commands on one hash slot: its entries read together (one MGET) and its counters moved (one INCR each). */
export interface SlotCommands {
  reads: readonly string[];
  increments: readonly string[];
}

/** What one SlotCommands answered: the entries (raw, null when absent) and each counter's new value, in order. */
export interface SlotReplies {
  values: (string | null)[];
  counts: number[];
}

/**
 * The gateway's per-request Redis access, kept behind this one interface so that the single-node connection
 * (mget-connection.ts) and a Redis Cluster client can each implement it. The rules an implementation keeps:
 * - one request costs one round trip: every command of one exchange goes out in one write per node;
 * - no command touches two hash slots: the caller groups its keys by slot (the key's entries `apikey:{k}` and
 *   its limiter counters `ratelimit:{k}:...`, the user's `authz:{u}` and quota counters `quota:{u}:...`), and a
 *   group travels as its own commands (a single node, which has no slots, may join the groups' reads in one MGET);
 * - no scripts: a counter is a plain INCR whose reply the gateway decides on (docs/performance.md);
 * - it rejects when Redis cannot answer (the gateway then asks the owning services and limits in process).
 */
export interface RequestReads {
  /** For each group: MGET of its reads (none when empty) and INCR of each of its increments; replies by group. */
  exchange(groups: readonly SlotCommands[]): Promise<SlotReplies[]>;
  /** DECR of each counter, sent with the next write and never awaited: gives back what a refused request counted. */
  decrement(counters: readonly string[]): void;
  /** PEXPIREAT of a counter its INCR just created (reply 1), sent like decrement: counters clean themselves up. */
  expireAt(counter: string, atMs: number): void;
}
