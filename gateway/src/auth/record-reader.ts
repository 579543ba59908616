import type { Cache, CacheScript, RequestRead, RespReply } from '@acs/cache';
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
  /** A script to run on the key's slot instead of its GET (the limiter's), or null. Its reply starts with the key's entry. */
  script: { script: CacheScript; keys: readonly string[]; args: readonly string[] } | null;
}

export interface RecordsRead {
  /** null: no such key. */
  record: KeyRecord | null;
  /** The user's record from the cache; undefined when the cache did not have it (ask lookupAuthz once the key passed). */
  authz: AuthzRecord | null | undefined;
  /** The script's reply when it ran. */
  script: RespReply[] | null;
  /** Redis could not be read: the records came from the owning services. */
  cacheDown: boolean;
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
    const record = await this.keyRecord(reply, options.key, options.requestId);
    const authz = options.userId === undefined ? null : this.cachedAuthz(reply, options.userId);
    return { record, authz, script: reply?.script ?? null, cacheDown: reply === null };
  }

  /** The request's Redis exchange; null when Redis could not answer. */
  private async exchange({ key, userId, requestId, trace, script }: ReadOptions): Promise<RequestRead | null> {
    const span = trace === null ? null : trace.redisSpan(script ? 'EVALSHA' : 'MGET');
    const userEntry = userId === undefined ? null : authzCacheKey(userId);
    try {
      const reads = this.cache.requestReads;
      let reply: RequestRead;
      if (!reads) {
        const [keyEntry, user] = await this.cache.mget(userEntry === null ? [apiKeyCacheKey(key)] : [apiKeyCacheKey(key), userEntry]);
        reply = { key: keyEntry ?? null, user: user ?? null, script: null };
      } else if (script) reply = await reads.readWithScript(script.script, script.keys, script.args, userEntry);
      else reply = await reads.read(apiKeyCacheKey(key), userEntry);
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

  private async keyRecord(reply: RequestRead | null, key: string, requestId: string): Promise<KeyRecord | null> {
    const parsed = reply?.key == null ? null : this.keyEntries.get(reply.key);
    if (parsed === NO_SUCH_KEY) return null;
    if (parsed !== null) {
      this.keys.set(key, parsed);
      return parsed;
    }
    const looked = await this.lookupKey(key, requestId);
    return looked && keyRecordOf(looked);
  }

  private cachedAuthz(reply: RequestRead | null, userId: number): AuthzRecord | undefined {
    const parsed = reply?.user == null ? null : this.authzEntries.get(reply.user);
    if (parsed === null) return undefined;
    this.users.set(userId, parsed);
    return parsed;
  }

  /** The user's record from identity (which refills the cache): only once the key passed, so a bad key never costs identity a read. */
  async lookupAuthzRecord(userId: number, requestId: string): Promise<AuthzRecord | null> {
    return this.lookupAuthz ? this.lookupAuthz(userId, requestId) : null;
  }
}
