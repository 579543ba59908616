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
   * Redis only: the gateway's per-request exchange (request-reads.ts). Absent on the in-process cache, where
   * the gateway reads with mgetVersioned and counts limits in process.
   */
  requestReads?: RequestReads;
  /** True when the store answers; never rejects (readiness probes call it). */
  ping(): Promise<boolean>;
  /** Idempotent. Calls made after close reject. */
  close(): Promise<void>;
}

/** What one request's exchange answered: the raw entries (`<version>|<value>` or null) and the script's reply, if one ran. */
export interface RequestRead {
  key: string | null;
  user: string | null;
  /** The script's whole reply (its first element is the key's raw entry); null when no script ran. */
  script: RespReply[] | null;
}

/**
 * The gateway's per-request Redis access, kept behind this one interface so that the single-node connection
 * (mget-connection.ts) and a Redis Cluster client can each implement it. The rules an implementation keeps:
 * - one request costs one round trip: every command of one call goes out in one write per node;
 * - no command touches two hash slots: the key's entries (`apikey:{k}`, `ratelimit:{k}`) are one slot, the
 *   user's entry (`authz:{u}`) is another, and they travel as separate commands (a single node may join
 *   them in one MGET, since it has no slots);
 * - it rejects when Redis cannot answer (the gateway then asks the owning services and limits in process).
 */
export interface RequestReads {
  /** GET of the key's entry and, when `userEntry` is given, of the user's entry. */
  read(keyEntry: string, userEntry: string | null): Promise<RequestRead>;
  /**
   * The same, except that the key's slot runs `script` (EVALSHA, EVAL when Redis does not know it) with
   * `keyEntries` as KEYS (the key's entry first, all in its slot) instead of the plain GET. The script must
   * return an array whose first element is the key's raw entry.
   */
  readWithScript(
    script: CacheScript,
    keyEntries: readonly string[],
    args: readonly string[],
    userEntry: string | null,
  ): Promise<RequestRead>;
}
