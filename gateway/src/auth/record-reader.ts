import type { Cache, SlotCommands, SlotReplies } from '@acs/cache';
import { authzCacheKey, type ApiKeyCacheRecord, type AuthzRecord } from '@acs/contracts';
import type { Logger } from '@acs/logger';
import type { GatewayMetrics } from '../metrics/gateway-metrics.js';
import { endRedisSpan, type RequestTrace } from '../tracing/request-trace.js';
import { LastSeen } from './last-seen.js';
import { NO_SUCH_KEY, keyRecordOf, parseKeyEntry, type KeyRecord } from './key-record.js';
import { ParsedMemo } from './parsed-memo.js';
import { exchanged, slotsOf, type ExchangePlan, type Exchanged } from './request-slots.js';

/** Ask the owning service on a cache miss (it refills the cache); null means "no such key/user". */
export type KeyLookup = (key: string, requestId: string) => Promise<ApiKeyCacheRecord | null>;
export type AuthzLookup = (userId: number, requestId: string) => Promise<AuthzRecord | null>;

/** What one request reads: the exchange's plan, and who asks. */
export interface ReadOptions extends ExchangePlan {
  requestId: string;
  trace: RequestTrace | null;
}

export interface RecordsRead {
  /** null: no such key. */
  record: KeyRecord | null;
  /** The user's record from the cache; undefined when the cache did not have it (ask lookupAuthz once the key passed). */
  authz: AuthzRecord | null | undefined;
  /** The key owner's record when it was read apart from the user's; undefined when not read or not in the cache. */
  owner: AuthzRecord | null | undefined;
  /** The key-slot counters' replies (without the key's entry) when keyCounters were given and Redis answered. */
  counters: SlotReplies | null;
  /** The owner's quota counts when ownerIncrements were given and Redis answered. */
  ownerCounts: number[] | null;
  /** Redis could not be read: the records came from the owning services. */
  cacheDown: boolean;
}

/** The groups' entries read with one mget (the in-process cache), answered by group like an exchange. */
async function mgetGroups(cache: Cache, groups: readonly SlotCommands[]): Promise<SlotReplies[]> {
  const values = await cache.mget(groups.flatMap((group) => group.reads));
  let at = 0;
  return groups.map((group) => {
    at += group.reads.length;
    return { values: values.slice(at - group.reads.length, at), counts: [] };
  });
}

const parseAuthzEntry = (raw: string): AuthzRecord | null => {
  const bar = raw.indexOf('|');
  return bar > 0 ? (JSON.parse(raw.slice(bar + 1)) as AuthzRecord) : null;
};

/**
 * Layer 1's key record, and the user's authorization record for layer 2, read together in one Redis round
 * trip from the records the owning services write through (cache.requestReads): a scope change, revocation,
 * role or trial change applies on the very next request. Never an in-process copy of a record: the
 * memos only save parsing a string already parsed once (parsed-memo.ts) and remember which record each key
 * had last (last-seen.ts), for the limiter's guess. On a miss the owning service answers (and refills).
 */
export class RecordReader {
  private readonly keyEntries = new ParsedMemo<KeyRecord | typeof NO_SUCH_KEY | null>(parseKeyEntry);
  private readonly authzEntries = new ParsedMemo<AuthzRecord | null>(parseAuthzEntry);
  private readonly keys = new LastSeen<string, KeyRecord>();
  private readonly users = new LastSeen<number, AuthzRecord>();

  constructor(
    private readonly cache: Cache,
    private readonly lookupKey: KeyLookup,
    private readonly lookupAuthz: AuthzLookup | null,
    private readonly logger: Logger,
    private readonly metrics: Pick<GatewayMetrics, 'cacheFellBack'>,
  ) {}

  /** The record this replica read last for the key, if it remembers one. */
  lastKeyRecord(key: string): KeyRecord | undefined {
    return this.keys.get(key);
  }

  lastAuthzRecord(userId: number): AuthzRecord | undefined {
    return this.users.get(userId);
  }

  /**
   * One async function for the whole read (the exchange awaited inline, the key's record parsed without an
   * await when this replica knows its entry): each promise layer here is paid on every request.
   */
  async read(options: ReadOptions): Promise<RecordsRead> {
    const { requestId, trace } = options;
    const span = trace === null ? null : trace.redisSpan(options.keyCounters || options.ownerIncrements ? 'MGET+INCR' : 'MGET');
    let reply: Exchanged | null;
    try {
      const reads = this.cache.requestReads;
      // The in-process cache (no exchange): the same entries, no counters (the limits count in process).
      const plan = reads ? options : { ...options, keyCounters: null, ownerIncrements: null };
      const groups = slotsOf(plan);
      reply = exchanged(plan, reads ? await reads.exchange(groups) : await mgetGroups(this.cache, groups));
      endRedisSpan(span, undefined);
    } catch (err) {
      endRedisSpan(span, err);
      reply = this.fellBack(err, requestId);
    }
    const known = reply === null || reply.key === null ? undefined : this.knownKeyRecord(reply.key, options.key);
    const record = known !== undefined ? known : await this.lookedUpKeyRecord(options.key, requestId);
    const { userId, ownerId } = options;
    const authz = userId === undefined ? null : this.cachedAuthz(reply?.user ?? null, userId);
    const owner = ownerId === undefined || ownerId === userId ? undefined : this.cachedAuthz(reply?.owner ?? null, ownerId);
    return { record, authz, owner, counters: reply?.counters ?? null, ownerCounts: reply?.ownerCounts ?? null, cacheDown: reply === null };
  }

  /** Redis is down: the owning services read their databases, which are always current. */
  private fellBack(err: unknown, requestId: string): null {
    this.logger.warn({ err, requestId }, 'cache unavailable; asking the owning services');
    this.metrics.cacheFellBack();
    return null;
  }

  /** The key's record from its cache entry; null: no such key; undefined: the entry did not parse (ask keys). */
  private knownKeyRecord(entry: string, key: string): KeyRecord | null | undefined {
    const unchanged = this.keys.ifUnchanged(key, entry);
    if (unchanged !== undefined) return unchanged;
    const parsed = this.keyEntries.get(entry);
    if (parsed === NO_SUCH_KEY) return null;
    if (parsed === null) return undefined;
    this.keys.set(key, parsed, entry);
    return parsed;
  }

  private async lookedUpKeyRecord(key: string, requestId: string): Promise<KeyRecord | null> {
    const looked = await this.lookupKey(key, requestId);
    return looked && keyRecordOf(looked);
  }

  private cachedAuthz(entry: string | null, userId: number): AuthzRecord | undefined {
    if (entry === null) return undefined;
    const unchanged = this.users.ifUnchanged(userId, entry);
    if (unchanged !== undefined) return unchanged;
    const parsed = this.authzEntries.get(entry);
    if (parsed === null) return undefined;
    this.users.set(userId, parsed, entry);
    return parsed;
  }

  /**
   * The key owner's record when the request's read did not carry it (a key new to this replica, a miss): one
   * more read, then identity on a miss or while Redis is down. Only once the key passed.
   */
  async ownerRecord(userId: number, requestId: string): Promise<AuthzRecord | null> {
    try {
      const [entry] = await this.cache.mget([authzCacheKey(userId)]);
      const cached = this.cachedAuthz(entry ?? null, userId);
      if (cached !== undefined) return cached;
    } catch (err) {
      this.logger.warn({ err, requestId }, "cache unavailable; asking identity for the key owner's record");
    }
    try {
      return await this.lookupAuthzRecord(userId, requestId);
    } catch (err) {
      // Only the quota needs it: a key-only request never fails because identity cannot answer (no quota then).
      this.logger.warn({ err, requestId }, "identity unavailable: the key owner's quota is not applied to this request");
      return null;
    }
  }

  /** The user's record from identity (which refills the cache): only once the key passed, so a bad key never costs identity a read. */
  async lookupAuthzRecord(userId: number, requestId: string): Promise<AuthzRecord | null> {
    return this.lookupAuthz ? this.lookupAuthz(userId, requestId) : null;
  }
}
