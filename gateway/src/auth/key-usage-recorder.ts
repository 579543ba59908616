import { z } from 'zod';
import { KEY_USAGE_PATH } from '@acs/contracts';
import type { Logger } from '@acs/logger';
import type { Upstream } from '../proxy/upstreams.js';
import { internalCall } from './internal-call.js';

const usageResponseSchema = z.object({ updated: z.number() });

/**
 * lastUsedAt without a database write per request: the gateway remembers the latest use of each
 * key in memory and sends the batch to the keys service every `flushMs` (default 10 s), so the
 * recorded time lags by at most about that. A failed send is kept and retried with the next one;
 * what is pending when a gateway crashes (at most one interval) is lost, which only makes
 * lastUsedAt older, never wrong about who used what.
 */
export class KeyUsageRecorder {
  private pending = new Map<string, number>();
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

  start(): void {
    this.timer ??= setInterval(() => void this.flush(), this.flushMs);
    this.timer.unref();
  }

  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    try {
      const usage = [...batch].map(([keyId, lastUsedAt]) => ({ keyId, lastUsedAt }));
      await internalCall(this.keys, this.internalSecret, 'POST', KEY_USAGE_PATH, 'gateway-key-usage', usageResponseSchema, { usage });
    } catch (err) {
      for (const [keyId, at] of batch) if (!this.pending.has(keyId) && this.pending.size < this.maxPending) this.pending.set(keyId, at);
      this.logger.warn({ err, keys: batch.size }, 'could not record key usage; will retry');
    }
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }
}
