import { SYSTEM_SCOPE, type KeyEnvironment } from '@acs/auth';
import type { Cache, RequestReads, SlotReplies } from '@acs/cache';
import { giveBackCounted, type Counted } from './counted.js';
import { rateLimitCacheKey, type RateLimitWindow, type RateLimits } from '@acs/contracts';
import type { Logger } from '@acs/logger';
import { LocalWindows } from './local-windows.js';
import { periodStart, windowsVerdict, type LimitVerdict } from './sliding-window.js';

export interface RateLimitSettings {
  /** RATE_LIMITS_LIVE / RATE_LIMITS_TEST: for keys without their own list; null: none. */
  defaults: Record<KeyEnvironment, RateLimits | null>;
  /** GATEWAY_REPLICAS: while Redis is unreachable each replica admits 1/replicas of every window. */
  replicas: number;
}

/** What the limiter needs to know of a key record: its id, scopes and own windows. */
export interface LimitedRecord {
  id: string;
  scopes: readonly string[];
  rateLimits?: RateLimits | null | undefined;
}

/** The counters of one request's periods: read the previous ones, increment the current ones (all in the key's slot). */
export interface PeriodCounters {
  /** Start (ms) of each window's current period. */
  starts: readonly number[];
  previous: readonly string[];
  current: readonly string[];
  /** The span of time these names hold for: from the latest start to the earliest end. */
  from: number;
  until: number;
}

/** A limited key's windows and its counters' names. Made once per record; the names once per period. */
export interface LimitPlan {
  windows: readonly RateLimitWindow[];
  /** `ratelimit:{<key>}:<seconds>:` per window; a period's counter adds its start in Unix seconds. */
  prefixes: readonly string[];
  at: PeriodCounters | null;
}

/** A counter outlives its period by one period (it is the next one's `previous`) and this slack for clocks. */
const EXPIRY_SLACK_MS = 5000;

/** The counters' names for `now`, reused while every window stays in the same period. */
export function countersAt(plan: LimitPlan, now: number): PeriodCounters {
  const at = plan.at;
  if (at !== null && now >= at.from && now < at.until) return at;
  const starts = plan.windows.map((w) => periodStart(w.windowSeconds, now));
  const fresh: PeriodCounters = {
    starts,
    previous: plan.prefixes.map((prefix, i) => prefix + (starts[i]! / 1000 - plan.windows[i]!.windowSeconds)),
    current: plan.prefixes.map((prefix, i) => prefix + starts[i]! / 1000),
    from: Math.max(...starts),
    until: Math.min(...starts.map((start, i) => start + plan.windows[i]!.windowSeconds * 1000)),
  };
  plan.at = fresh;
  return fresh;
}

/**
 * The verdict from the counters' replies (`values`: the previous periods', `counts`: the INCRs'). A counter its
 * INCR just created (1) gets its expiry, sent without waiting: it is needed until its next period ends.
 */
function verdictFrom(plan: LimitPlan, counters: PeriodCounters, replies: SlotReplies, now: number, reads: RequestReads): LimitVerdict {
  const previous = replies.values.map((value) => (value === null ? 0 : Number(value) || 0));
  for (let i = 0; i < replies.counts.length; i++) {
    if (replies.counts[i] === 1) {
      reads.expireAt(counters.current[i]!, counters.starts[i]! + 2 * plan.windows[i]!.windowSeconds * 1000 + EXPIRY_SLACK_MS);
    }
  }
  return windowsVerdict(plan.windows, counters.starts, previous, replies.counts, now);
}

/** A request counted with its read: the plan it was counted on, its counters and the time they were named at. */
export interface CountGuess {
  plan: LimitPlan;
  counters: PeriodCounters;
  now: number;
}

/** Whether two plans of one key count in the same counters: windows of the same lengths, in the same order. */
function sameCounters(plan: LimitPlan, other: LimitPlan): boolean {
  if (plan === other) return true;
  if (plan.windows.length !== other.windows.length) return false;
  for (let i = 0; i < plan.windows.length; i++) if (plan.prefixes[i] !== other.prefixes[i]) return false;
  return true;
}

/**
 * Per-key rate limits (issue 16) and where their counters live: Redis (plain INCRs in the request's own round
 * trip, sliding-window.ts) or in process. Normally the request is counted with its read (the pipeline asks
 * planFor with the record it parsed last time); this class covers what that could not decide:
 * - the record was new to this replica or had changed: count(), one more round trip;
 * - Redis is unreachable: in-process counters at this replica's share (1/GATEWAY_REPLICAS of each limit),
 *   so a client never runs unlimited and is never refused by everyone;
 * - an in-process cache (the embedded default, one process): in-process counters at full share.
 */
export class RateLimiter {
  private readonly plans = new WeakMap<LimitedRecord, LimitPlan | null>();
  private readonly local = new LocalWindows();
  private readonly share: number;

  constructor(
    private readonly cache: Cache,
    private readonly settings: RateLimitSettings,
    private readonly logger: Logger,
  ) {
    this.share = 1 / settings.replicas;
  }

  /** The key's windows, null when it is not limited (system:full-access, or no list and no default). Once per record. */
  planFor(apiKey: string, record: LimitedRecord, environment: KeyEnvironment): LimitPlan | null {
    let plan = this.plans.get(record);
    if (plan === undefined) {
      const windows = record.scopes.includes(SYSTEM_SCOPE) ? null : (record.rateLimits ?? this.settings.defaults[environment]);
      plan =
        windows && windows.length > 0
          ? { windows, prefixes: windows.map((w) => `${rateLimitCacheKey(apiKey)}:${w.windowSeconds}:`), at: null }
          : null;
      this.plans.set(record, plan);
    }
    return plan;
  }

  /** A decision for a request that was not counted with its read. `cacheDown`: Redis failed on this request's read. */
  async count(record: LimitedRecord, plan: LimitPlan, cacheDown: boolean): Promise<{ verdict: LimitVerdict; counted: Counted | null }> {
    const reads = this.cache.requestReads;
    if (!reads) return this.localCount(record.id, plan, 1);
    if (!cacheDown) {
      try {
        const now = Date.now();
        const counters = countersAt(plan, now);
        const [replies] = await reads.exchange([{ reads: counters.previous, increments: counters.current }]);
        return { verdict: verdictFrom(plan, counters, replies!, now, reads), counted: { redis: counters.current } };
      } catch (err) {
        this.logger.warn({ err }, "rate limit: Redis unavailable; counting at this replica's share");
      }
    }
    return this.localCount(record.id, plan, this.share);
  }

  /** In process: a refused request is not counted there, so only an admitted one has something to give back. */
  private localCount(id: string, plan: LimitPlan, share: number): { verdict: LimitVerdict; counted: Counted | null } {
    const verdict = this.local.take(id, plan.windows, share);
    return { verdict, counted: verdict.admitted ? { local: this.local, ids: [id] } : null };
  }

  /**
   * The verdict of a request counted with its read on the plan of the record this replica read last (`guess`).
   * `plan` is the plan of the record the read returned: when its windows have the same lengths, the counters
   * moved are its counters too (state is keyed by window length), so the request is decided on its limits at
   * once (a refusal is given back with the request's other counts). Otherwise null: the counts are given back
   * and count() counts the request on its own record.
   */
  settle(guess: CountGuess, replies: SlotReplies, plan: LimitPlan | null): LimitVerdict | null {
    const reads = this.cache.requestReads!;
    if (plan !== null && sameCounters(plan, guess.plan)) return verdictFrom(plan, guess.counters, replies, guess.now, reads);
    reads.decrement(guess.counters.current);
    return null;
  }

  /** Gives back a request that was counted and then refused (by a later check, a limit or the quota). */
  giveBack(counted: readonly Counted[]): void {
    giveBackCounted(counted, this.cache.requestReads);
  }
}
