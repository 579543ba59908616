import { z } from 'zod';
import { KEY_USAGE_PATH, type KeyUsageCount, type QuotaThresholdCrossing } from '@acs/contracts';
import type { Logger } from '@acs/logger';
import type { Upstream } from '../proxy/upstreams.js';
import { internalCall } from './internal-call.js';

const usageResponseSchema = z.object({ updated: z.number() });

const DAY_MS = 86_400_000;
/** Slots of a day's counters, in this order: 2xx, 3xx, 4xx (429 excepted), 429, 5xx. */
const slotOf = (status: number): number => (status === 429 ? 3 : status >= 500 ? 4 : status >= 400 ? 2 : status >= 300 ? 1 : 0);
type DayCounts = Map<string, Float64Array>;

/**
 * lastUsedAt without a database write per request: the gateway remembers the latest use of each
 * key in memory and sends the batch to the keys service every `flushMs` (default 10 s), so the
 * recorded time lags by at most about that. A failed send is kept and retried with the next one;
 * what is pending when a gateway crashes (at most one interval) is lost, which only makes
 * lastUsedAt older, never wrong about who used what.
 *
 * The same batch carries each key's requests per UTC day and status class (what the owner's usage chart
 * shows): counted in memory at the end of each request (two Map reads and an increment), so counting
 * adds no I/O to any request. A gateway that dies loses what it counted since its last flush (at most
 * one interval's worth; more only while the keys service is unreachable and batches are being kept).
 */
export class KeyUsageRecorder {
  private pending = new Map<string, number>();
  /** Quota thresholds crossed since the last flush (rare: at most three per user and period). */
  private crossings: QuotaThresholdCrossing[] = [];
  /** UTC day (YYYY-MM-DD) -> key id -> counters by status class. */
  private counts = new Map<string, DayCounts>();
  private countedKeys = 0;
  private today = '';
  private todayCounts: DayCounts = new Map();
  private nextDayAtMs = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly keys: Upstream,
    private readonly internalSecret: string,
    private readonly logger: Logger,
    private readonly flushMs = 10_000,
    private readonly maxPending = 100_000,
  ) {}

  /** On the hot path: one Map write. */
  record(keyId: string): void {
    if (this.pending.size < this.maxPending || this.pending.has(keyId)) this.pending.set(keyId, Math.floor(Date.now() / 1000));
  }

  /** On the hot path, when the answer is known: a request of this key answered with this status. */
  count(keyId: string, status: number): void {
    const now = Date.now();
    if (now >= this.nextDayAtMs) this.turnDay(now);
    let counters = this.todayCounts.get(keyId);
    if (counters === undefined) {
      if (this.countedKeys >= this.maxPending) return;
      counters = new Float64Array(5);
      this.todayCounts.set(keyId, counters);
      this.countedKeys++;
    }
    counters[slotOf(status)]!++;
  }

  /** A user's quota counter crossed a threshold on this request; keys publishes it once per period. */
  quotaThreshold(crossing: QuotaThresholdCrossing): void {
    if (this.crossings.length < this.maxPending) this.crossings.push(crossing);
  }

  private turnDay(now: number): void {
    const dayStart = Math.floor(now / DAY_MS) * DAY_MS;
    this.today = new Date(dayStart).toISOString().slice(0, 10);
    this.nextDayAtMs = dayStart + DAY_MS;
    let counts = this.counts.get(this.today);
    if (counts === undefined) {
      counts = new Map();
      this.counts.set(this.today, counts);
    }
    this.todayCounts = counts;
  }

  start(): void {
    this.timer ??= setInterval(() => void this.flush(), this.flushMs);
    this.timer.unref();
  }

  async flush(): Promise<void> {
    if (this.pending.size === 0 && this.countedKeys === 0 && this.crossings.length === 0) return;
    const batch = this.pending;
    const counted = this.counts;
    const crossings = this.crossings;
    this.crossings = [];
    this.pending = new Map();
    this.counts = new Map();
    this.countedKeys = 0;
    this.nextDayAtMs = 0; // the next count re-creates today's map in the new one
    try {
      const usage = [...batch].map(([keyId, lastUsedAt]) => ({ keyId, lastUsedAt }));
      await internalCall(this.keys, this.internalSecret, 'POST', KEY_USAGE_PATH, 'gateway-key-usage', usageResponseSchema, {
        usage,
        counts: countsOf(counted),
        ...(crossings.length > 0 ? { quotaThresholds: crossings } : {}),
      });
    } catch (err) {
      for (const [keyId, at] of batch) if (!this.pending.has(keyId) && this.pending.size < this.maxPending) this.pending.set(keyId, at);
      this.keepCounts(counted);
      this.crossings = crossings.concat(this.crossings).slice(0, this.maxPending);
      this.logger.warn({ err, keys: batch.size }, 'could not record key usage; will retry');
    }
  }

  /** A failed batch's counts are added back, so the next flush sends them (bounded like the rest). */
  private keepCounts(counted: Map<string, DayCounts>): void {
    for (const [day, keys] of counted) {
      let counts = this.counts.get(day);
      if (counts === undefined) {
        counts = new Map();
        this.counts.set(day, counts);
      }
      for (const [keyId, values] of keys) {
        const current = counts.get(keyId);
        if (current) for (let i = 0; i < 5; i++) current[i]! += values[i]!;
        else if (this.countedKeys < this.maxPending) {
          counts.set(keyId, values);
          this.countedKeys++;
        }
      }
    }
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }
}

function countsOf(counted: Map<string, DayCounts>): KeyUsageCount[] {
  const out: KeyUsageCount[] = [];
  for (const [date, keys] of counted) {
    for (const [keyId, c] of keys)
      out.push({ keyId, date, byStatus: { '2xx': c[0]!, '3xx': c[1]!, '4xx': c[2]!, '429': c[3]!, '5xx': c[4]! } });
  }
  return out;
}
