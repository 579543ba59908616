import type { RouteRecorder } from '@acs/metrics';
import type { RequestTrace } from '../tracing/request-trace.js';
import type { KeyRecord } from '../auth/key-record.js';
import type { RouteMatch } from '@acs/http';
import type { RouteSpec } from '../routing/route-table.js';

/** What the end-of-request accounting reads; an ApiExchange is one, a public endpoint's request makes a small one. */
export interface Finishable {
  readonly recorder: RouteRecorder;
  readonly startedMs: number;
  readonly trace: RequestTrace | null;
  readonly record: KeyRecord | null;
  readonly keyPassed: boolean;
  /** The route the path and method matched (an ApiExchange has it, also when its scope was refused): its operationId names the usage. */
  readonly found?: RouteMatch<RouteSpec>;
}

/**
 * The one end-of-request accounting, for every answer: the route's metrics, the trace's end, and the key's
 * usage once its key and secret passed. Called by the handler for answers the gateway wrote, and by the
 * proxy exchange when a forwarded answer ends (or the client left).
 */
export function finish(ex: Finishable, usage: { count(keyId: string, status: number, operationId?: string): void }, status: number): void {
  ex.recorder.observe(status, (performance.now() - ex.startedMs) / 1000);
  ex.trace?.end(status);
  if (ex.keyPassed) usage.count(ex.record!.id, status, ex.found?.kind === 'found' ? ex.found.route.operationId : undefined);
}
