import type { Cache, RequestReads } from '@acs/cache';
import type { QuotaThresholdCrossing } from '@acs/contracts';
import type { Logger } from '@acs/logger';
import type { Counted, LocalCounters } from './counted.js';
import {
  crossingsOf,
  quotaCounterExpiry,
  quotaCountersAt,
  quotaVerdict,
  sameQuotaCounters,
  type QuotaCounters,
  type QuotaPlan,
  type QuotaVerdict,
} from './quota.js';

/** A request's quota as decided: the plan, its counters, the counts with this request and the verdict. */
export interface QuotaDecision {
  plan: QuotaPlan;
  counters: QuotaCounters;
  counts: readonly number[];
  verdict: QuotaVerdict;
}

/** A request counted with its read on the quota of the user's record this replica read last. */
export interface QuotaGuess {
  plan: QuotaPlan;
  counters: QuotaCounters;
  now: number;
}

/**
 * In-process quota counts while Redis is unreachable (each replica admits its share of what the last count
 * it saw left: (quota - last seen) / GATEWAY_REPLICAS) and in the embedded mode (one process, full share).
 */
class LocalQuota implements LocalCounters {
  private readonly counts = new Map<string, number>();

  /** The count with this request as all replicas together would see it: the last count Redis answered (`known`), plus this replica's times `replicas`. */
  take(counters: QuotaCounters, known: QuotaCounters | undefined, replicas: number): number[] {
    if (this.counts.size >= 100_000) this.counts.clear();
    return counters.names.map((name, i) => {
      const own = (this.counts.get(name) ?? 0) + 1;
      this.counts.set(name, own);
      const base = known?.names[i] === name ? known.seen[i]! : 0;
      return base + own * replicas;
    });
  }

  refund(name: string): void {
    const own = this.counts.get(name);
    if (own !== undefined && own > 0) this.counts.set(name, own - 1);
  }
}

/** The users' plan quotas (issue 29): the decision with the read, or in a second round trip, or in process. */
export class QuotaLimiter {
  private readonly local = new LocalQuota();
  /** Per user, the counters Redis last answered for (their `seen` counts), even across record changes. */
  private readonly latest = new Map<number, QuotaCounters>();

  constructor(
    private readonly cache: Cache,
    private readonly replicas: number,
    private readonly logger: Logger,
    private readonly recorder: { quotaThreshold(crossing: QuotaThresholdCrossing): void },
  ) {}

  /**
   * The decision on the counts the read's INCRs answered, when the record read counts in the same counters
   * as the guess (its caps may differ: they are decided on the counts); otherwise null, the counts given back.
   */
  settle(guess: QuotaGuess, counts: readonly number[], plan: QuotaPlan | null): QuotaDecision | null {
    const reads = this.cache.requestReads!;
    if (plan === null || !sameQuotaCounters(plan, guess.plan)) {
      reads.decrement(guess.counters.names);
      return null;
    }
    return this.decided(plan, guess.counters, counts, guess.now, reads);
  }

  /** A decision for a request not counted with its read (a user new to this replica, a changed quota, Redis down). */
  async count(plan: QuotaPlan, cacheDown: boolean): Promise<{ decision: QuotaDecision; counted: Counted }> {
    const now = Date.now();
    const counters = quotaCountersAt(plan, now);
    const reads = this.cache.requestReads;
    if (reads && !cacheDown) {
      try {
        const [replies] = await reads.exchange([{ reads: [], increments: counters.names }]);
        return { decision: this.decided(plan, counters, replies!.counts, now, reads), counted: { redis: counters.names } };
      } catch (err) {
        this.logger.warn({ err }, "quota: Redis unavailable; counting at this replica's share");
      }
    }
    const counts = this.local.take(counters, this.latest.get(plan.userId), reads ? this.replicas : 1);
    const decision = { plan, counters, counts, verdict: quotaVerdict(plan, counters, counts, now) };
    return { decision, counted: { local: this.local, ids: counters.names } };
  }

  /** An admitted request: the thresholds its counts crossed go to keys with the usage batch. */
  admitted(decision: QuotaDecision): void {
    // The embedded mode keeps the count where the keys service reads it (GET /api/Usage).
    if (!this.cache.requestReads) this.mirror(decision);
    for (const crossing of crossingsOf(decision.plan, decision.counters, decision.counts)) this.recorder.quotaThreshold(crossing);
  }

  private mirror({ counters, counts }: QuotaDecision): void {
    for (let i = 0; i < counts.length; i++) {
      const ttl = Math.ceil((quotaCounterExpiry(counters, i) - Date.now()) / 1000);
      this.cache.set(counters.names[i]!, String(counts[i]), ttl).catch(() => {});
    }
  }

  private decided(plan: QuotaPlan, counters: QuotaCounters, counts: readonly number[], now: number, reads: RequestReads): QuotaDecision {
    for (let i = 0; i < counts.length; i++) {
      if (counts[i] === 1) reads.expireAt(counters.names[i]!, quotaCounterExpiry(counters, i));
      counters.seen[i] = counts[i]!;
    }
    if (this.latest.get(plan.userId) !== counters) {
      if (this.latest.size >= 100_000) this.latest.clear();
      this.latest.set(plan.userId, counters);
    }
    return { plan, counters, counts, verdict: quotaVerdict(plan, counters, counts, now) };
  }
}
