import { describe, expect, it } from '@jest/globals';
import { metricSamples } from '@acs/testing';
import { Histogram, Registry, SeriesHistogram } from '@acs/metrics';

const BUCKETS = [0.001, 0.01, 0.1, 1];
// On a bound, past the last one, zero, and the same value twice.
const OBSERVED: [string, number][] = [
  ['GET', 0.001],
  ['GET', 0.0005],
  ['GET', 0.05],
  ['GET', 7],
  ['POST', 0.1],
  ['POST', 0.1],
  ['GET', 0],
];

describe('SeriesHistogram', () => {
  it('writes exactly the lines prom-client writes for the same observations', async () => {
    const ours = new Registry();
    const theirs = new Registry();
    for (const registry of [ours, theirs]) registry.setDefaultLabels({ service: 'test' });
    const histogram = new SeriesHistogram({
      registry: ours,
      name: 'latency_seconds',
      help: 'test',
      labelNames: ['method'] as const,
      buckets: BUCKETS,
    });
    const reference = new Histogram({
      name: 'latency_seconds',
      help: 'test',
      labelNames: ['method'],
      buckets: BUCKETS,
      registers: [theirs],
    });
    const series = { GET: histogram.series({ method: 'GET' }), POST: histogram.series({ method: 'POST' }) };
    for (const [method, value] of OBSERVED) {
      series[method as 'GET' | 'POST'].observe(value);
      reference.observe({ method }, value);
    }
    const sorted = (text: string) =>
      ['_bucket', '_sum', '_count']
        .flatMap((suffix) => metricSamples(text, `latency_seconds${suffix}`))
        .map((s) => JSON.stringify([s.name, Object.entries(s.labels).sort(), s.value]))
        .sort();
    const text = await ours.metrics();
    expect(sorted(text)).toEqual(sorted(await theirs.metrics()));
    expect(text).toContain('# TYPE latency_seconds histogram');
    expect(metricSamples(text, 'latency_seconds_bucket').find((s) => s.labels.method === 'GET' && s.labels.le === '0.001')?.value).toBe(3);
  });

  it('shows a new series at zero, and reset() zeroes every series', async () => {
    const registry = new Registry();
    const histogram = new SeriesHistogram({
      registry,
      name: 'work_seconds',
      help: 'test',
      labelNames: ['kind'] as const,
      buckets: BUCKETS,
    });
    const series = histogram.series({ kind: 'a' });
    expect(metricSamples(await registry.metrics(), 'work_seconds_count')).toEqual([
      { name: 'work_seconds_count', labels: { kind: 'a' }, value: 0 },
    ]);
    series.observe(0.5);
    expect(metricSamples(await registry.metrics(), 'work_seconds_count')[0]?.value).toBe(1);
    registry.resetMetrics();
    expect(metricSamples(await registry.metrics(), 'work_seconds_sum')[0]?.value).toBe(0);
  });

  it('refuses buckets out of order and a label named le', () => {
    expect(() => new SeriesHistogram({ registry: new Registry(), name: 'a', help: 'x', labelNames: [], buckets: [0.1, 0.01] })).toThrow(
      /ascending/,
    );
    expect(
      () => new SeriesHistogram({ registry: new Registry(), name: 'b', help: 'x', labelNames: ['le'] as const, buckets: [1] }),
    ).toThrow(/le/);
  });
});
