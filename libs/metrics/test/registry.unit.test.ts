import { describe, expect, it } from '@jest/globals';
import { metricSamples, metricValue } from '@acs/testing';
import { Counter, createMetricsRegistry } from '@acs/metrics';

describe('createMetricsRegistry', () => {
  it('has the process metrics, every series labelled with the service', async () => {
    const registry = createMetricsRegistry('catalog');
    const text = await registry.metrics();
    expect(metricValue(text, 'process_cpu_user_seconds_total', { service: 'catalog' })).toBeGreaterThanOrEqual(0);
    expect(metricValue(text, 'nodejs_heap_size_used_bytes', { service: 'catalog' })).toBeGreaterThan(0);
    const samples = text.split('\n').filter((line) => line !== '' && !line.startsWith('#'));
    expect(samples.length).toBeGreaterThan(20);
    expect(samples.filter((line) => !line.includes('service="catalog"'))).toEqual([]);
  });

  it('keeps services of one process apart: their own metrics, their own label, shared process collectors', async () => {
    const keys = createMetricsRegistry('keys');
    const billing = createMetricsRegistry('billing');
    new Counter({ name: 'only_in_billing_total', help: 'test', registers: [billing] }).inc(3);
    const keysText = await keys.metrics();
    const billingText = await billing.metrics();
    expect(metricValue(billingText, 'only_in_billing_total', { service: 'billing' })).toBe(3);
    expect(metricValue(keysText, 'only_in_billing_total')).toBeUndefined();
    expect(metricSamples(keysText, 'nodejs_version_info')[0]?.labels.service).toBe('keys');
    expect(metricSamples(billingText, 'nodejs_version_info')[0]?.labels.service).toBe('billing');
  });

  it('answers with the Prometheus text content type', () => {
    expect(createMetricsRegistry('x').contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
  });
});
