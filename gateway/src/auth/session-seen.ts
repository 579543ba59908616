import { SESSION_SEEN_PATH, sessionSeenResponseSchema } from '@acs/contracts';
import type { Logger } from '@acs/logger';
import type { Upstream } from '../proxy/upstreams.js';
import { internalCall } from './internal-call.js';

/** How often one replica tells identity a session was used: its "last seen" to the nearest few minutes. */
const REPORT_EVERY_MS = 5 * 60 * 1000;
const MAX_ENTRIES = 100_000;

/**
 * Sessions' last seen (issue 32) without a write per request: each replica remembers when it last told
 * identity about a session and tells it again only after REPORT_EVERY_MS, off the request path (the call
 * is not awaited; a failure only leaves last seen older). Per request: one Map lookup. Bounded: emptied
 * when full (a forgotten session is reported once more, which identity's own 5-minute guard absorbs).
 */
export class SessionSeenReporter {
  private readonly reported = new Map<string, number>();

  constructor(
    private readonly identity: Upstream,
    private readonly internalSecret: string,
    private readonly logger: Logger,
  ) {}

  seen(userId: number, sessionId: string, requestId: string, nowMs = Date.now()): void {
    const last = this.reported.get(sessionId);
    if (last !== undefined && nowMs - last < REPORT_EVERY_MS) return;
    if (this.reported.size >= MAX_ENTRIES) this.reported.clear();
    this.reported.set(sessionId, nowMs);
    internalCall(this.identity, this.internalSecret, 'POST', SESSION_SEEN_PATH, requestId, sessionSeenResponseSchema, {
      userId,
      sessionId,
    }).catch((err: unknown) => this.logger.debug({ err }, 'could not report a session as seen'));
  }
}
