import { IDEMPOTENCY_MAX_STORED_BYTES, IDEMPOTENCY_TTL_SECONDS } from '@acs/contracts';
import type { Logger } from '@acs/logger';
import type { IdempotencyStore } from './idempotency-store.js';

/** The answer headers a replay repeats; the others (X-Request-Id, rate limits, dates) belong to the request that gets them. */
const REPLAYED_HEADERS = ['content-type', 'location', 'etag', 'cache-control', 'content-language'] as const;

/** What the proxy exchange tells a watcher of the answer it streams (forward.ts). */
export interface AnswerTap {
  start(status: number, headers: Record<string, string | string[]>): void;
  data(chunk: Buffer): void;
  end(): void;
  /** The answer never completed (the service failed, the client left). */
  abandon(): void;
}

/**
 * The answer to a request that holds an Idempotency-Key lease: collected as it streams to the client
 * (up to IDEMPOTENCY_MAX_STORED_BYTES), then kept for replays, or the lease freed when the answer is a
 * 5xx, too large to keep, or never finished: the client may retry and that retry runs again.
 */
export class PendingAnswer implements AnswerTap {
  private status = 0;
  private headers: Record<string, string> = {};
  private chunks: Buffer[] = [];
  private size = 0;
  private tooLarge = false;

  constructor(
    private readonly store: IdempotencyStore,
    private readonly entry: string,
    private readonly lease: string,
    private readonly fingerprint: string,
    /** The request body, read to fingerprint it; forwarded as it is. */
    readonly body: Buffer,
    private readonly logger: Logger,
    private readonly requestId: string,
  ) {}

  start(status: number, headers: Record<string, string | string[]>): void {
    this.status = status;
    for (const name of REPLAYED_HEADERS) {
      const value = headers[name];
      if (typeof value === 'string') this.headers[name] = value;
    }
  }

  data(chunk: Buffer): void {
    if (this.tooLarge) return;
    this.size += chunk.length;
    if (this.size > IDEMPOTENCY_MAX_STORED_BYTES) {
      this.tooLarge = true;
      this.chunks = [];
      return;
    }
    this.chunks.push(chunk);
  }

  end(): void {
    if (this.status >= 500 || this.tooLarge) {
      this.abandon();
      return;
    }
    const answer = { status: this.status, headers: this.headers, body: Buffer.concat(this.chunks) };
    this.store
      .complete(this.entry, this.lease, this.fingerprint, answer, IDEMPOTENCY_TTL_SECONDS)
      .catch((err: unknown) =>
        this.logger.warn({ err, requestId: this.requestId }, 'could not keep an idempotent answer; its lease runs out'),
      );
  }

  abandon(): void {
    this.store
      .release(this.entry, this.lease, this.fingerprint)
      .catch((err: unknown) => this.logger.warn({ err, requestId: this.requestId }, 'could not free an idempotency lease; it runs out'));
  }
}
