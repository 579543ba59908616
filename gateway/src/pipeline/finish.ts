import type { RouteRecorder } from '@acs/metrics';
import type { RequestTrace } from '../tracing/request-trace.js';
import type { KeyRecord } from '../auth/key-record.js';

/** What the end-of-request accounting reads; an ApiExchange is one, a public endpoint's request makes a small one. */
export interface Finishable {
  readonly recorder: RouteRecorder;
  readonly startedMs: number;
  readonly trace: RequestTrace | null;
  readonly record: KeyRecord | null;
  readonly keyPassed: boolean;
  /** The matched route (an ApiExchange has one): its operationId names the key's usage per operation. */
  readonly route?: { readonly operationId: string } | null;
}

/**
 * The one end-of-request accounting, for every answer: the route's metrics, the trace's end, and the key's
 * usage once its key and secret passed. Called by the handler for answers the gateway wrote, and by the
 * proxy exchange when a forwarded answer ends (or the client left).
 */
export function finish(ex: Finishable, usage: { count(keyId: string, status: number, operationId?: string): void }, status: number): void {
  ex.recorder.observe(status, (performance.now() - ex.startedMs) / 1000);
  ex.trace?.end(status);
  if (ex.keyPassed) usage.count(ex.record!.id, status, ex.route?.operationId);
}
