export { createMetricsRegistry } from './registry.js';
export { CounterSeries, FlushedCounter, type FlushedCounterConfig } from './flushed-counter.js';
export { HistogramSeries, SeriesHistogram, type SeriesHistogramConfig } from './series-histogram.js';
export {
  HTTP_DURATION_BUCKETS,
  HTTP_REQUESTS_TOTAL,
  HTTP_REQUEST_DURATION_SECONDS,
  HttpMetrics,
  UNMATCHED_ROUTE,
  type RouteRecorder,
} from './http-metrics.js';
export { httpMetricsMiddleware } from './koa-middleware.js';
export { METRICS_PATH, metricsExposition, sendMetrics, type Exposition } from './exposition.js';
// The prom-client types other packages define their own metrics with, so they depend on this package only.
export { Counter, Gauge, Histogram, Registry } from 'prom-client';
