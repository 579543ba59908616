import { describe, expect, it } from '@jest/globals';
import { knownSeriesLabels, knownSeriesNames, metricNamesIn, registeredLabels, registeredMetrics, unknownLabels } from './metric-names.js';

// The checker the rule and dashboard tests rely on: it must find metric names, and only them.

describe('metricNamesIn', () => {
  it('finds the metric names of an expression and nothing else', () => {
    const expr = `(
      sum by (service, route) (rate(http_server_requests_total{status=~"5..", route!="up"}[5m]))
        / ignoring (status) sum by (service, route) (rate(http_server_requests_total[$__rate_interval] offset 1h))
    ) > 0.05 and on (service) histogram_quantile(0.99, sum by (le) (rate(http_server_request_duration_seconds_bucket[5m]))) > 1e3
    or vector(0) unless up == bool 0`;
    expect(metricNamesIn(expr).sort()).toEqual(['http_server_request_duration_seconds_bucket', 'http_server_requests_total', 'up']);
  });

  it('reports a misspelt name, which the known names do not hold', async () => {
    const known = await knownSeriesNames();
    const names = metricNamesIn('sum(rate(gateway_upstream_failure_total[5m])) > 0');
    expect(names).toEqual(['gateway_upstream_failure_total']);
    expect(names.filter((name) => !known.has(name))).toEqual(['gateway_upstream_failure_total']);
  });
});

describe('unknownLabels', () => {
  it('reports a matcher or a grouping label the metric does not have, and passes the ones it has', async () => {
    const known = await knownSeriesLabels();
    expect(
      unknownLabels('sum by (service, reason) (rate(gateway_auth_rejections_total{reason="api_key", instance=~".+"}[5m]))', known),
    ).toEqual([]);
    expect(
      unknownLabels('histogram_quantile(0.99, sum by (le, route) (rate(http_server_request_duration_seconds_bucket[5m])))', known),
    ).toEqual([]);
    expect(unknownLabels('sum by (reasons) (rate(gateway_auth_rejections_total{outcome="x"}[5m]))', known)).toEqual([
      'gateway_auth_rejections_total{outcome}',
      'by/on (reasons)',
    ]);
    expect(unknownLabels('sum by (le) (rate(http_server_requests_total[5m]))', known)).toEqual(['by/on (le)']);
  });
});

describe('the metric names found in the code', () => {
  it('hold every metric of the docs/observability.md table, with its type', () => {
    const metrics = registeredMetrics();
    expect(Object.fromEntries([...metrics].sort())).toEqual({
      billing_outbox_oldest_pending_age_seconds: 'gauge',
      billing_outbox_pending_events: 'gauge',
      bus_messages_consumed_total: 'counter',
      bus_messages_published_total: 'counter',
      catalog_reads_total: 'counter',
      gateway_auth_rejections_total: 'counter',
      gateway_cache_fallbacks_total: 'counter',
      gateway_rate_limited_total: 'counter',
      gateway_upstream_failures_total: 'counter',
      http_server_request_duration_seconds: 'histogram',
      http_server_requests_total: 'counter',
      identity_login_local_limiter_total: 'counter',
      identity_login_throttled_total: 'counter',
      identity_registration_throttled_total: 'counter',
      keys_outbox_oldest_pending_age_seconds: 'gauge',
      keys_outbox_pending_events: 'gauge',
    });
  });

  it('carry the labels of the docs/observability.md table', () => {
    const labels = registeredLabels();
    expect(labels.get('http_server_requests_total')).toEqual(['method', 'route', 'status']);
    expect(labels.get('http_server_request_duration_seconds')).toEqual(['method', 'route', 'status']);
    expect(labels.get('gateway_auth_rejections_total')).toEqual(['reason']);
    expect(labels.get('gateway_upstream_failures_total')).toEqual(['upstream', 'status']);
    expect(labels.get('gateway_rate_limited_total')).toEqual(['method', 'route']);
    expect(labels.get('bus_messages_consumed_total')).toEqual(['queue', 'outcome']);
    expect(labels.get('identity_login_throttled_total')).toEqual(['limit']);
    expect(labels.get('billing_outbox_oldest_pending_age_seconds')).toEqual([]);
    expect(labels.get('catalog_reads_total')).toEqual(['source']);
  });

  it('expose a histogram as its _bucket, _sum and _count series, and prom-client defaults by name', async () => {
    const known = await knownSeriesNames();
    expect(known.has('http_server_request_duration_seconds_bucket')).toBe(true);
    expect(known.has('http_server_request_duration_seconds')).toBe(false);
    expect(known.has('nodejs_eventloop_lag_p99_seconds')).toBe(true);
    expect(known.has('process_resident_memory_bytes')).toBe(true);
  });
});
