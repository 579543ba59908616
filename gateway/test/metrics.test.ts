import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Cache } from '@acs/cache';
import { metricSamples, metricValue, unusedPort, startFakeUpstream, type FakeUpstream } from '@acs/testing';
import { startGatewayHarness, type GatewayHarness } from './harness.js';

let h: GatewayHarness;
let catalog: FakeUpstream;
let reader: { id: string; key: string; secret: string };
let loginOnly: { key: string; secret: string };
let system: { key: string; secret: string };

beforeAll(async () => {
  catalog = await startFakeUpstream();
  // Billing points at a dead port; identity and device are "not deployed".
  h = await startGatewayHarness({ CATALOG_URL: catalog.url, BILLING_URL: `http://127.0.0.1:${await unusedPort()}` });
  reader = await h.createKey(['read:devices']);
  loginOnly = await h.createKey(['auth:login']);
  system = await h.createKey(['system:full-access']);
});
afterAll(async () => {
  await h.close();
  await catalog.close();
});

async function scrape(metricsUrl: string): Promise<string> {
  const res = await fetch(`${metricsUrl}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  return res.text();
}
const metricsUrl = (): string => h.gateway.metricsServer!.url;
const requests = (text: string, labels: Record<string, string>) =>
  metricValue(text, 'http_server_requests_total', { service: 'gateway', ...labels });

describe('gateway metrics', () => {
  it('are not served on the public port: /metrics there is a 404 in the error shape, with or without a key', async () => {
    for (const auth of [null, system]) {
      const res = await h.call('GET', '/metrics', auth);
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({
        error: 'Not found',
        message: expect.any(String),
        requestId: res.headers.get('x-request-id'),
      });
    }
    expect(h.gateway.metricsServer!.port).not.toBe(new URL(h.url).port);
  });

  it('count requests by route pattern, method and status, and auth refusals by reason', async () => {
    const before = await scrape(metricsUrl());
    expect(metricValue(before, 'gateway_auth_rejections_total', { reason: 'scope' })).toBe(0); // present before the first refusal

    expect((await h.call('GET', '/api/Dac?brand=Topping&page=2', reader)).status).toBe(200);
    expect((await h.call('GET', '/api/Dac?brand=Schiit', reader)).status).toBe(200);
    expect((await h.call('GET', '/api/Dac', { key: reader.key, secret: 'wrong-secret' })).status).toBe(401);
    expect((await h.call('GET', '/api/Dac', loginOnly)).status).toBe(403);
    expect((await h.call('DELETE', '/api/Subscriptions/sub-12345', system)).status).toBe(403); // no user JWT
    expect((await h.call('GET', '/api/Nothing/98765', reader)).status).toBe(404);
    expect((await h.call('GET', '/healthz', null)).status).toBe(200);

    const text = await scrape(metricsUrl());
    expect(requests(text, { method: 'GET', route: '/api/Dac', status: '200' })).toBe(2);
    expect(requests(text, { method: 'GET', route: '/api/Dac', status: '401' })).toBe(1);
    expect(requests(text, { method: 'GET', route: '/api/Dac', status: '403' })).toBe(1);
    expect(requests(text, { method: 'DELETE', route: '/api/Subscriptions/{id}', status: '403' })).toBe(1);
    expect(requests(text, { method: 'GET', route: 'unmatched', status: '404' })).toBeGreaterThanOrEqual(1);
    expect(requests(text, { method: 'GET', route: '/healthz', status: '200' })).toBe(1);
    expect(metricValue(text, 'http_server_request_duration_seconds_count', { route: '/api/Dac', status: '200' })).toBe(2);
    expect(metricValue(text, 'gateway_auth_rejections_total', { reason: 'api_key' })).toBe(1);
    expect(metricValue(text, 'gateway_auth_rejections_total', { reason: 'scope' })).toBe(1);
    expect(metricValue(text, 'gateway_auth_rejections_total', { reason: 'user' })).toBe(1);

    // Labels are patterns from the route table: no ids, query strings, keys or secrets.
    const routes = new Set(metricSamples(text, 'http_server_requests_total').map((sample) => sample.labels.route));
    expect([...routes].sort()).toEqual(['/api/Dac', '/api/Subscriptions/{id}', '/healthz', 'unmatched']);
    for (const leak of ['Topping', 'sub-12345', '98765', reader.key, reader.secret, 'wrong-secret']) expect(text).not.toContain(leak);
  });

  it('count upstream failures by upstream and status', async () => {
    expect((await h.call('GET', '/api/SubscriptionPlans', reader)).status).toBe(503); // billing unreachable
    expect(
      (await h.call('POST', '/api/Users/Login', loginOnly, { headers: { 'content-type': 'application/json' }, body: '{}' })).status,
    ).toBe(503); // not deployed
    catalog.handle = (req) => req.socket.destroy();
    try {
      expect((await h.call('GET', '/api/Dac', reader)).status).toBe(502);
    } finally {
      catalog.handle = (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"ok":true}');
      };
    }
    const text = await scrape(metricsUrl());
    expect(metricValue(text, 'gateway_upstream_failures_total', { upstream: 'billing', status: '503' })).toBe(1);
    expect(metricValue(text, 'gateway_upstream_failures_total', { upstream: 'identity', status: '503' })).toBe(1);
    expect(metricValue(text, 'gateway_upstream_failures_total', { upstream: 'catalog', status: '502' })).toBe(1);
    expect(requests(text, { method: 'GET', route: '/api/SubscriptionPlans', status: '503' })).toBe(1);
    expect(requests(text, { method: 'GET', route: '/api/Dac', status: '502' })).toBe(1);
  });

  it('count a request whose client left before the answer as 499', async () => {
    catalog.handle = () => {}; // never answers
    const controller = new AbortController();
    const pending = h.call('GET', '/api/Dac', reader, { signal: controller.signal }).catch((err: unknown) => err);
    await new Promise((resolve) => setTimeout(resolve, 100));
    controller.abort();
    await pending;
    catalog.handle = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    };
    // The gateway notices the abort on its own time: poll for it.
    const deadline = Date.now() + 5_000;
    let text = await scrape(metricsUrl());
    while (requests(text, { route: '/api/Dac', status: '499' }) === undefined && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      text = await scrape(metricsUrl());
    }
    expect(requests(text, { method: 'GET', route: '/api/Dac', status: '499' })).toBe(1);
    expect(metricValue(text, 'gateway_upstream_failures_total', { upstream: 'catalog', status: '504' })).toBeUndefined(); // the client left: not the service's failure
  });

  it('count requests answered by asking the keys service because Redis was unavailable', async () => {
    const refused = () => Promise.reject(new Error('connection refused'));
    const redisDown: Cache = {
      ...h.cache,
      mget: refused,
      mgetVersioned: refused,
      evalScript: refused,
      requestReads: { exchange: refused, decrement: () => {}, expireAt: () => {} },
    };
    const other = await h.startAnotherGateway({ cache: redisDown });
    const before = await scrape(other.metricsServer!.url);
    expect(metricValue(before, 'gateway_cache_fallbacks_total', { service: 'gateway' })).toBe(0);
    const res = await fetch(`${other.server.url}/api/Dac`, { headers: { 'x-api-key': reader.key, 'x-api-secret': reader.secret } });
    expect(res.status).toBe(200);
    expect(metricValue(await scrape(other.metricsServer!.url), 'gateway_cache_fallbacks_total')).toBe(1);
  });

  it('the metrics listener serves nothing else, and METRICS_PORT=off starts none', async () => {
    const other = await fetch(`${metricsUrl()}/api/Dac`);
    expect(other.status).toBe(404);
    expect(await other.json()).toMatchObject({ error: 'Not found' });
    const withoutMetrics = await h.startAnotherGateway({ env: { METRICS_PORT: 'off' } });
    expect(withoutMetrics.metricsServer).toBeNull();
    expect((await fetch(`${withoutMetrics.server.url}/healthz`)).status).toBe(200);
  });
});
