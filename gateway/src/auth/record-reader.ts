import type { Cache, SlotCommands, SlotReplies } from '@acs/cache';
import { apiKeyCacheKey, authzCacheKey, type ApiKeyCacheRecord, type AuthzRecord } from '@acs/contracts';
import type { Logger } from '@acs/logger';
import type { GatewayMetrics } from '../metrics/gateway-metrics.js';
import { endRedisSpan, type RequestTrace } from '../tracing/request-trace.js';
import { LastSeen } from './last-seen.js';
import { NO_SUCH_KEY, keyRecordOf, parseKeyEntry, type KeyRecord } from './key-record.js';
import { ParsedMemo } from './parsed-memo.js';

/** Ask the owning service on a cache miss (it refills the cache); null means "no such key/user". */
export type KeyLookup = (key: string, requestId: string) => Promise<ApiKeyCacheRecord | null>;
export type AuthzLookup = (userId: number, requestId: string) => Promise<AuthzRecord | null>;

/** What one request reads. */
export interface ReadOptions {
  key: string;
  /** The user the token claims (unverified); undefined on key-only routes. */
  userId: number | undefined;
  requestId: string;
  trace: RequestTrace | null;
  /** Counters in the key's slot to read and increment with the key's entry (the limiter's), or null. */
  keyCounters: SlotCommands | null;
}

export interface RecordsRead {
  /** null: no such key. */
  record: KeyRecord | null;
  /** The user's record from the cache; undefined when the cache did not have it (ask lookupAuthz once the key passed). */
  authz: AuthzRecord | null | undefined;
  /** The key-slot counters' replies (without the key's entry) when keyCounters were given and Redis answered. */
  counters: SlotReplies | null;
  /** Redis could not be read: the records came from the owning services. */
  cacheDown: boolean;
}

/** What the exchange answered: the raw entries and the key slot's counters. */
interface Exchanged {
  key: string | null;
  user: string | null;
  counters: SlotReplies | null;
}

/** The request's commands by hash slot: the key's entry and counters, then the user's entry. */
function slotsOf(key: string, keyCounters: SlotCommands | null, userEntry: string | null): SlotCommands[] {
  const keySlot: SlotCommands = keyCounters
    ? { reads: [apiKeyCacheKey(key), ...keyCounters.reads], increments: keyCounters.increments }
    : { reads: [apiKeyCacheKey(key)], increments: [] };
  return userEntry === null ? [keySlot] : [keySlot, { reads: [userEntry], increments: [] }];
}

function exchanged(replies: SlotReplies[], counted: boolean): Exchanged {
  const keySlot = replies[0]!;
  return {
    key: keySlot.values[0] ?? null,
    user: replies[1]?.values[0] ?? null,
    counters: counted ? { values: keySlot.values.slice(1), counts: keySlot.counts } : null,
  };
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

  async read(options: ReadOptions): Promise<RecordsRead> {
    const reply = await this.exchange(options);
    const record = await this.keyRecord(reply?.key ?? null, options.key, options.requestId);
    const authz = options.userId === undefined ? null : this.cachedAuthz(reply?.user ?? null, options.userId);
    return { record, authz, counters: reply?.counters ?? null, cacheDown: reply === null };
  }

  /** The request's Redis exchange; null when Redis could not answer. */
  private async exchange({ key, userId, requestId, trace, keyCounters }: ReadOptions): Promise<Exchanged | null> {
    const span = trace === null ? null : trace.redisSpan(keyCounters ? 'MGET+INCR' : 'MGET');
    const userEntry = userId === undefined ? null : authzCacheKey(userId);
    try {
      const reads = this.cache.requestReads;
      let reply: Exchanged;
      if (!reads) {
        const [keyEntry, user] = await this.cache.mget(userEntry === null ? [apiKeyCacheKey(key)] : [apiKeyCacheKey(key), userEntry]);
        reply = { key: keyEntry ?? null, user: user ?? null, counters: null };
      } else reply = exchanged(await reads.exchange(slotsOf(key, keyCounters, userEntry)), keyCounters !== null);
      endRedisSpan(span, undefined);
      return reply;
    } catch (err) {
      endRedisSpan(span, err);
      // Redis is down: the owning services read their databases, which are always current.
      this.logger.warn({ err, requestId }, 'cache unavailable; asking the owning services');
      this.metrics.cacheFellBack();
      return null;
    }
  }

  private async keyRecord(entry: string | null, key: string, requestId: string): Promise<KeyRecord | null> {
    const parsed = entry === null ? null : this.keyEntries.get(entry);
    if (parsed === NO_SUCH_KEY) return null;
    if (parsed !== null) {
      this.keys.set(key, parsed);
      return parsed;
    }
    const looked = await this.lookupKey(key, requestId);
    return looked && keyRecordOf(looked);
  }

  private cachedAuthz(entry: string | null, userId: number): AuthzRecord | undefined {
    const parsed = entry === null ? null : this.authzEntries.get(entry);
    if (parsed === null) return undefined;
    this.users.set(userId, parsed);
    return parsed;
  }

  /** The user's record from identity (which refills the cache): only once the key passed, so a bad key never costs identity a read. */
  async lookupAuthzRecord(userId: number, requestId: string): Promise<AuthzRecord | null> {
    return this.lookupAuthz ? this.lookupAuthz(userId, requestId) : null;
  }
}
