import { describe, expect, it } from '@jest/globals';
import { metricSamples, metricValue } from '@acs/testing';
import {
  FlushedCounter,
  HTTP_REQUESTS_TOTAL,
  HTTP_REQUEST_DURATION_SECONDS,
  HttpMetrics,
  Registry,
  UNMATCHED_ROUTE,
  httpMetricsMiddleware,
} from '@acs/metrics';

describe('FlushedCounter', () => {
  it('shows a series as 0 from its creation and the exact count at each scrape', async () => {
    const registry = new Registry();
    const counter = new FlushedCounter({ registry, name: 'things_total', help: 'test', labelNames: ['kind'] as const });
    const red = counter.series({ kind: 'red' });
    counter.series({ kind: 'blue' });
    expect(metricValue(await registry.metrics(), 'things_total', { kind: 'red' })).toBe(0);
    red.inc();
    red.inc();
    expect(metricValue(await registry.metrics(), 'things_total', { kind: 'red' })).toBe(2);
    red.inc();
    const text = await registry.metrics();
    expect(metricValue(text, 'things_total', { kind: 'red' })).toBe(3); // not 2 + 3: only the delta is added
    expect(metricValue(text, 'things_total', { kind: 'blue' })).toBe(0);
  });
});

describe('HttpMetrics', () => {
  it('counts and times answers by method, route pattern and status', async () => {
    const registry = new Registry();
    const metrics = new HttpMetrics(registry);
    const recorder = metrics.recorder('GET', '/api/Dac');
    expect(metrics.recorder('GET', '/api/Dac')).toBe(recorder);
    recorder.observe(200, 0.003);
    recorder.observe(200, 0.2);
    recorder.observe(400, 0.001);
    metrics.recorder('DELETE', '/api/ApiKeys/{id}').observe(204, 0.004);
    const text = await registry.metrics();
    expect(metricValue(text, HTTP_REQUESTS_TOTAL, { method: 'GET', route: '/api/Dac', status: '200' })).toBe(2);
    expect(metricValue(text, HTTP_REQUESTS_TOTAL, { method: 'GET', route: '/api/Dac', status: '400' })).toBe(1);
    expect(metricValue(text, HTTP_REQUESTS_TOTAL, { method: 'DELETE', route: '/api/ApiKeys/{id}', status: '204' })).toBe(1);
    expect(metricValue(text, `${HTTP_REQUEST_DURATION_SECONDS}_count`, { route: '/api/Dac', status: '200' })).toBe(2);
    expect(metricValue(text, `${HTTP_REQUEST_DURATION_SECONDS}_sum`, { route: '/api/Dac', status: '200' })).toBeCloseTo(0.203, 6);
    expect(metricValue(text, `${HTTP_REQUEST_DURATION_SECONDS}_bucket`, { route: '/api/Dac', status: '200', le: '0.005' })).toBe(1);
    expect(metricValue(text, `${HTTP_REQUEST_DURATION_SECONDS}_bucket`, { route: '/api/Dac', status: '200', le: '+Inf' })).toBe(2);
  });
});

describe('httpMetricsMiddleware', () => {
  const run = async (
    ctx: { method: string; status: number; _matchedRoute?: string },
    work: () => Promise<void> = async () => undefined,
  ) => {
    const registry = new Registry();
    const middleware = httpMetricsMiddleware(new HttpMetrics(registry));
    await middleware(ctx, work).catch(() => undefined);
    return registry.metrics();
  };

  it('labels a request with the pattern of the route that ran', async () => {
    const text = await run({ method: 'PATCH', status: 200, _matchedRoute: '/api/ApiKeys/:id' });
    expect(metricSamples(text, HTTP_REQUESTS_TOTAL).map((s) => s.labels)).toEqual([
      { method: 'PATCH', route: '/api/ApiKeys/:id', status: '200' },
    ]);
  });

  it(`labels a request no route matched "${UNMATCHED_ROUTE}"`, async () => {
    const text = await run({ method: 'GET', status: 404 });
    expect(metricValue(text, HTTP_REQUESTS_TOTAL, { route: UNMATCHED_ROUTE, status: '404' })).toBe(1);
  });

  it('counts an error that escaped every handler as the 500 Koa answers', async () => {
    const text = await run({ method: 'GET', status: 404, _matchedRoute: '/boom' }, async () => {
      throw new Error('boom');
    });
    expect(metricValue(text, HTTP_REQUESTS_TOTAL, { route: '/boom', status: '500' })).toBe(1);
  });
});
