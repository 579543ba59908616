import type { Registry } from 'prom-client';
import { FlushedCounter, type CounterSeries } from './flushed-counter.js';
import { SeriesHistogram, type HistogramSeries } from './series-histogram.js';

export const HTTP_REQUESTS_TOTAL = 'http_server_requests_total';
export const HTTP_REQUEST_DURATION_SECONDS = 'http_server_request_duration_seconds';
/** The route label of a request no route matched: raw paths would make the label unbounded. */
export const UNMATCHED_ROUTE = 'unmatched';
/** From 1 ms: the gateway and most service answers take a few milliseconds. */
export const HTTP_DURATION_BUCKETS: readonly number[] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

type HttpLabel = 'method' | 'route' | 'status';

/** Counts and times the answers of one (method, route pattern); get it once and keep it. */
export interface RouteRecorder {
  observe(status: number, seconds: number): void;
}

interface StatusSeries {
  requests: CounterSeries;
  duration: HistogramSeries<HttpLabel>;
}

class Recorder implements RouteRecorder {
  private readonly byStatus = new Map<number, StatusSeries>();

  constructor(
    private readonly labels: { method: string; route: string },
    private readonly create: (labels: Record<HttpLabel, string>) => StatusSeries,
  ) {}

  observe(status: number, seconds: number): void {
    let series = this.byStatus.get(status);
    if (series === undefined) {
      // Once per status per route: the label strings are built here, never per request.
      series = this.create({ method: this.labels.method, route: this.labels.route, status: String(status) });
      this.byStatus.set(status, series);
    }
    series.requests.inc();
    series.duration.observe(seconds);
  }
}

/**
 * `http_server_requests_total` and `http_server_request_duration_seconds` by method, route pattern
 * and status. The route is always a pattern from a route table (`/api/<resource>/{id}`) or
 * UNMATCHED_ROUTE, never the raw URL, so ids and query strings never become label values.
 */
export class HttpMetrics {
  private readonly requests: FlushedCounter<HttpLabel>;
  private readonly duration: SeriesHistogram<HttpLabel>;
  private readonly recorders = new Map<string, Map<string, RouteRecorder>>();

  constructor(registry: Registry, buckets: readonly number[] = HTTP_DURATION_BUCKETS) {
    const labelNames = ['method', 'route', 'status'] as const;
    this.requests = new FlushedCounter({
      registry,
      name: HTTP_REQUESTS_TOTAL,
      help: 'HTTP requests answered, by method, route pattern and status',
      labelNames,
    });
    this.duration = new SeriesHistogram({
      registry,
      name: HTTP_REQUEST_DURATION_SECONDS,
      help: 'Time from request to the end of the answer, by method, route pattern and status',
      labelNames,
      buckets,
    });
  }

  /** The recorder of one (method, route pattern), made on first use and reused after. */
  recorder(method: string, route: string): RouteRecorder {
    let byMethod = this.recorders.get(route);
    if (byMethod === undefined) {
      byMethod = new Map();
      this.recorders.set(route, byMethod);
    }
    let recorder = byMethod.get(method);
    if (recorder === undefined) {
      recorder = new Recorder({ method, route }, (labels) => ({
        requests: this.requests.series(labels),
        duration: this.duration.series(labels),
      }));
      byMethod.set(method, recorder);
    }
    return recorder;
  }
}
