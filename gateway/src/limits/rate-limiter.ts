import { SYSTEM_SCOPE, type KeyEnvironment } from '@acs/auth';
import type { Cache, RespReply } from '@acs/cache';
import { apiKeyCacheKey, rateLimitCacheKey, type RateLimitWindow, type RateLimits } from '@acs/contracts';
import type { Logger } from '@acs/logger';
import { LocalGcra, type LimitVerdict } from './gcra.js';
import { LIMIT, REFUND } from './limit-script.js';

export interface RateLimitSettings {
  /** RATE_LIMITS_LIVE / RATE_LIMITS_TEST: for keys without their own list; null: none. */
  defaults: Record<KeyEnvironment, RateLimits | null>;
  /** GATEWAY_REPLICAS: while Redis is unreachable each replica admits 1/replicas of every window. */
  replicas: number;
}

/** How a verdict was reached, so a request refused later by another check can be given back where it was counted. */
export type CountedIn = 'redis' | 'local' | 'local-share';

/** What the limiter needs to know of a key record: its id, scopes, own windows and cache entry (version and length). */
export interface LimitedRecord {
  id: string;
  scopes: readonly string[];
  rateLimits?: RateLimits | null | undefined;
  /** "<version>|" of the cache entry the record was parsed from, and the entry's length ('' and 0: not from the cache). */
  entryPrefix: string;
  entryLength: number;
}

/** A limited key's windows and the LIMIT script's arguments for the record they came from. */
export interface LimitPlan {
  windows: readonly RateLimitWindow[];
  args: readonly string[];
  /** The script's KEYS: the key's record and its limiter state (one hash slot). */
  keys: readonly string[];
}

/** The script's reply when it counted: entry, status, window, remaining, reset, retry-after. */
export function verdictOf(reply: RespReply[]): LimitVerdict | null {
  if (reply.length < 6) return null;
  return {
    admitted: reply[1] === 1,
    window: (reply[2] as number) - 1,
    remaining: reply[3] as number,
    resetSeconds: reply[4] as number,
    retryAfterSeconds: reply[5] as number,
  };
}

/**
 * Per-key rate limits (issue 16), and the owner of their state: in Redis (limit-script.ts) or in process.
 * Normally the decision is made in the round trip that reads the key record (the pipeline asks planFor with
 * the record it parsed last time); this class covers what that could not decide:
 * - the record was new to this replica or had changed: count(), one more round trip;
 * - Redis is unreachable: an in-process GCRA at this replica's share (1/GATEWAY_REPLICAS of each limit),
 *   so a client never runs unlimited and is never refused by everyone;
 * - an in-process cache (the embedded default, one process): the in-process GCRA at full share.
 */
export class RateLimiter {
  private readonly plans = new WeakMap<LimitedRecord, LimitPlan | null>();
  private readonly local = new LocalGcra();
  private readonly share: number;

  constructor(
    private readonly cache: Cache,
    private readonly settings: RateLimitSettings,
    private readonly logger: Logger,
  ) {
    this.share = 1 / settings.replicas;
  }

  /**
   * The key's windows and the script's arguments; null when it is not limited (system:full-access, or no list
   * and no default). Made once per record (a record is read for one key only).
   */
  planFor(apiKey: string, record: LimitedRecord, environment: KeyEnvironment): LimitPlan | null {
    let plan = this.plans.get(record);
    if (plan === undefined) {
      const windows = record.scopes.includes(SYSTEM_SCOPE) ? null : (record.rateLimits ?? this.settings.defaults[environment]);
      plan =
        windows && windows.length > 0
          ? { windows, args: scriptArgs(record, windows), keys: [apiKeyCacheKey(apiKey), rateLimitCacheKey(apiKey)] }
          : null;
      this.plans.set(record, plan);
    }
    return plan;
  }

  /** A decision for a request that was not counted with its read. `cacheDown`: Redis failed on this request's read. */
  async count(record: LimitedRecord, plan: LimitPlan, cacheDown: boolean): Promise<{ verdict: LimitVerdict; counted: CountedIn }> {
    if (!this.cache.evalScript) return { verdict: this.local.take(record.id, plan.windows), counted: 'local' };
    if (!cacheDown) {
      try {
        const reply = await this.cache.evalScript(LIMIT, plan.keys, plan.args);
        const verdict = verdictOf(reply);
        // null: the record changed again since this request read it; the request is judged on what it read.
        if (verdict) return { verdict, counted: 'redis' };
      } catch (err) {
        this.logger.warn({ err }, "rate limit: Redis unavailable; counting at this replica's share");
      }
    }
    return { verdict: this.local.take(record.id, plan.windows, this.share), counted: 'local-share' };
  }

  /** Gives back a request that was counted and then refused by a later check (a token that failed verification). */
  refund(apiKey: string, record: LimitedRecord, counted: CountedIn): void {
    if (counted !== 'redis') {
      this.local.refund(record.id);
      return;
    }
    this.cache
      .evalScript?.(REFUND, [rateLimitCacheKey(apiKey)], [])
      .catch((err: unknown) => this.logger.warn({ err }, 'rate limit refund failed'));
  }
}

function scriptArgs(record: LimitedRecord, windows: readonly RateLimitWindow[]): string[] {
  const args = [record.entryPrefix, String(record.entryLength)];
  for (const window of windows) args.push(String(window.limit), String(window.windowSeconds));
  return args;
}
