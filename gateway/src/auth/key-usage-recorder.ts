import { z } from 'zod';
import { KEY_USAGE_PATH, type KeyOperationUsageCount, type KeyUsageCount, type QuotaThresholdCrossing } from '@acs/contracts';
import type { Logger } from '@acs/logger';
import type { Upstream } from '../proxy/upstreams.js';
import { internalCall } from './internal-call.js';

const usageResponseSchema = z.object({ updated: z.number() });

const HOUR_MS = 3_600_000;
/** Slots of an hour's counters, in this order: 2xx, 3xx, 4xx (429 excepted), 429, 5xx. */
const slotOf = (status: number): number => (status === 429 ? 3 : status >= 500 ? 4 : status >= 400 ? 2 : status >= 300 ? 1 : 0);
/** What a request counts under when the caller names no operation. */
const UNKNOWN_OPERATION = 'unknown';
/** key id -> operationId -> counters by status class, for one UTC hour. */
type HourCounts = Map<string, Map<string, Float64Array>>;

/**
 * lastUsedAt without a database write per request: the gateway remembers the latest use of each
 * key in memory and sends the batch to the keys service every `flushMs` (default 10 s), so the
 * recorded time lags by at most about that. A failed send is kept and retried with the next one;
 * what is pending when a gateway crashes (at most one interval) is lost, which only makes
 * lastUsedAt older, never wrong about who used what.
 *
 * The same batch carries each key's requests per operation, UTC hour and status class (issue 29),
 * and the same summed per UTC day (what the owner's daily chart shows): counted in memory at the end
 * of each request (three Map reads and an increment), so counting adds no I/O to any request. A
 * gateway that dies loses what it counted since its last flush (at most one interval's worth; more
 * only while the keys service is unreachable and batches are being kept).
 */
export class KeyUsageRecorder {
  private pending = new Map<string, number>();
  /** Quota thresholds crossed since the last flush (rare: at most three per user and period). */
  private crossings: QuotaThresholdCrossing[] = [];
  /** Start of the UTC hour (ms) -> its counts. */
  private counts = new Map<number, HourCounts>();
  /** (key, operation, hour) entries held: bounded by maxPending. */
  private counted = 0;
  private hourCounts: HourCounts = new Map();
  private nextHourAtMs = 0;
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

  /** On the hot path, when the answer is known: a request of this key to this operation answered with this status. */
  count(keyId: string, status: number, operationId = UNKNOWN_OPERATION): void {
    const now = Date.now();
    if (now >= this.nextHourAtMs) this.turnHour(now);
    let byOperation = this.hourCounts.get(keyId);
    if (byOperation === undefined) {
      if (this.counted >= this.maxPending) return;
      byOperation = new Map();
      this.hourCounts.set(keyId, byOperation);
    }
    let counters = byOperation.get(operationId);
    if (counters === undefined) {
      if (this.counted >= this.maxPending) return;
      counters = new Float64Array(5);
      byOperation.set(operationId, counters);
      this.counted++;
    }
    counters[slotOf(status)]!++;
  }

  /** A user's quota counter crossed a threshold on this request; keys publishes it once per period. */
  quotaThreshold(crossing: QuotaThresholdCrossing): void {
    if (this.crossings.length < this.maxPending) this.crossings.push(crossing);
  }

  private turnHour(now: number): void {
    const hourStart = Math.floor(now / HOUR_MS) * HOUR_MS;
    this.nextHourAtMs = hourStart + HOUR_MS;
    let counts = this.counts.get(hourStart);
    if (counts === undefined) {
      counts = new Map();
      this.counts.set(hourStart, counts);
    }
    this.hourCounts = counts;
  }

  start(): void {
    this.timer ??= setInterval(() => void this.flush(), this.flushMs);
    this.timer.unref();
  }

  async flush(): Promise<void> {
    if (this.pending.size === 0 && this.counted === 0 && this.crossings.length === 0) return;
    const batch = this.pending;
    const counted = this.counts;
    const crossings = this.crossings;
    this.crossings = [];
    this.pending = new Map();
    this.counts = new Map();
    this.counted = 0;
    this.nextHourAtMs = 0; // the next count re-creates this hour's map in the new one
    try {
      const usage = [...batch].map(([keyId, lastUsedAt]) => ({ keyId, lastUsedAt }));
      await internalCall(this.keys, this.internalSecret, 'POST', KEY_USAGE_PATH, 'gateway-key-usage', usageResponseSchema, {
        usage,
        counts: dailyCountsOf(counted),
        operationCounts: operationCountsOf(counted),
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
  private keepCounts(counted: Map<number, HourCounts>): void {
    for (const [hour, keys] of counted) {
      let counts = this.counts.get(hour);
      if (counts === undefined) {
        counts = new Map();
        this.counts.set(hour, counts);
      }
      for (const [keyId, operations] of keys) {
        let current = counts.get(keyId);
        if (current === undefined) {
          current = new Map();
          counts.set(keyId, current);
        }
        for (const [operationId, values] of operations)
          if (addCounters(current, operationId, values, this.counted < this.maxPending)) this.counted++;
      }
    }
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }
}

/** Adds `values` to the counters under `id`, creating them when `mayCreate`; true when it created them. */
function addCounters(into: Map<string, Float64Array>, id: string, values: Float64Array, mayCreate: boolean): boolean {
  const current = into.get(id);
  if (current) for (let i = 0; i < 5; i++) current[i]! += values[i]!;
  else if (mayCreate) into.set(id, Float64Array.from(values));
  return current === undefined && mayCreate;
}

const byStatusOf = (c: Float64Array) => ({ '2xx': c[0]!, '3xx': c[1]!, '4xx': c[2]!, '429': c[3]!, '5xx': c[4]! });

/** The hours' counts summed per key and UTC day (the daily chart's rows). */
function dailyCountsOf(counted: Map<number, HourCounts>): KeyUsageCount[] {
  const days = new Map<string, Map<string, Float64Array>>();
  for (const [hour, keys] of counted) {
    const date = new Date(hour).toISOString().slice(0, 10);
    let day = days.get(date);
    if (day === undefined) {
      day = new Map();
      days.set(date, day);
    }
    for (const [keyId, operations] of keys) for (const values of operations.values()) addCounters(day, keyId, values, true);
  }
  const out: KeyUsageCount[] = [];
  for (const [date, keys] of days) for (const [keyId, c] of keys) out.push({ keyId, date, byStatus: byStatusOf(c) });
  return out;
}

function operationCountsOf(counted: Map<number, HourCounts>): KeyOperationUsageCount[] {
  const out: KeyOperationUsageCount[] = [];
  for (const [hourMs, keys] of counted) {
    const hour = new Date(hourMs).toISOString();
    for (const [keyId, operations] of keys)
      for (const [operationId, c] of operations) out.push({ keyId, operationId, hour, byStatus: byStatusOf(c) });
  }
  return out;
}
