import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createRedisCache } from '@acs/cache';
import { metricValue, startFaultProxy, testServerUrl, unusedPort, startFakeUpstream, type FakeUpstream } from '@acs/testing';
import { startGatewayHarness, type GatewayHarness } from './harness.js';

let h: GatewayHarness;
let catalog: FakeUpstream;
let key: { key: string; secret: string };

beforeAll(async () => {
  catalog = await startFakeUpstream();
  // Billing points at a dead port; identity and device are "not deployed".
  h = await startGatewayHarness(
    { CATALOG_URL: catalog.url, BILLING_URL: `http://127.0.0.1:${await unusedPort()}` },
    { UPSTREAM_TIMEOUT_MS: '400', MAX_BODY_BYTES: '1024' },
  );
  key = await h.createKey(['system:full-access']);
});
afterAll(async () => {
  await h.close();
  await catalog.close();
});

async function expectError(res: Response, status: number, error: string): Promise<void> {
  expect(res.status).toBe(status);
  const body = (await res.json()) as Record<string, unknown>;
  expect(body).toMatchObject({ error, message: expect.any(String), requestId: res.headers.get('x-request-id') });
}

describe('gateway errors', () => {
  it('503 with Retry-After and a hint when the upstream is down', async () => {
    const res = await h.call('GET', '/api/SubscriptionPlans', key);
    expect(res.headers.get('retry-after')).toBe('5');
    await expectError(res, 503, 'Service unavailable');
  });

  it('503 for a service that is not deployed yet, not a fake success, without a Retry-After it would not keep', async () => {
    const res = await h.call('POST', '/api/Users/Login', key, { headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.headers.get('retry-after')).toBeNull();
    await expectError(res, 503, 'Service unavailable');
  });

  it('504 when the upstream does not answer in time', async () => {
    catalog.handle = () => {}; // never answers
    await expectError(await h.call('GET', '/api/Dac', key), 504, 'Gateway timeout');
  });

  it('502 when the upstream breaks the connection', async () => {
    catalog.handle = (req) => req.socket.destroy();
    await expectError(await h.call('GET', '/api/Dac', key), 502, 'Bad gateway');
  });

  it('survives a client that aborts mid-request, and aborts the upstream call', async () => {
    let upstreamClosed = false;
    catalog.handle = (_req, res) => res.on('close', () => (upstreamClosed = true));
    const controller = new AbortController();
    const pending = h.call('GET', '/api/Dac', key, { signal: controller.signal }).catch((err: unknown) => err);
    await new Promise((r) => setTimeout(r, 100));
    controller.abort();
    expect(await pending).toMatchObject({ name: 'AbortError' });
    await new Promise((r) => setTimeout(r, 100));
    expect(upstreamClosed).toBe(true);
    catalog.handle = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    };
    expect((await h.call('GET', '/api/Dac', key)).status).toBe(200);
  });

  it('does not forward a request whose client left while its key was being read', async () => {
    // A second gateway whose Redis replies can be held: the client leaves while its MGET is unanswered.
    const proxy = await startFaultProxy(testServerUrl('REDIS_URL'), 6379);
    const cache = createRedisCache({ url: proxy.url, keyPrefix: h.redisPrefix });
    const other = await h.startAnotherGateway({ cache });
    try {
      catalog.handle = (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"ok":true}');
      };
      expect((await fetch(`${other.server.url}/api/Dac`, { headers: { 'x-api-key': key.key, 'x-api-secret': key.secret } })).status).toBe(
        200,
      );
      const forwardedBefore = catalog.received.length;
      proxy.holdReplies();
      const client = connect(other.server.port, '127.0.0.1');
      client.on('error', () => {});
      client.write(`GET /api/Dac HTTP/1.1\r\nHost: gw\r\nX-Api-Key: ${key.key}\r\nX-Api-Secret: ${key.secret}\r\n\r\n`);
      for (let i = 0; i < 200 && proxy.heldBytes() === 0; i++) await new Promise((r) => setTimeout(r, 5));
      expect(proxy.heldBytes()).toBeGreaterThan(0); // Redis has answered; the gateway has not seen it
      client.destroy();
      await new Promise((r) => setTimeout(r, 50));
      proxy.releaseReplies();
      await new Promise((r) => setTimeout(r, 100));
      expect(catalog.received.length).toBe(forwardedBefore);
      const metrics = await (await fetch(`${other.metricsServer!.url}/metrics`)).text();
      expect(metricValue(metrics, 'http_server_requests_total', { route: '/api/Dac', status: '499' })).toBe(1);
      // The pooled connections are all free: the next request goes through at once.
      expect((await fetch(`${other.server.url}/api/Dac`, { headers: { 'x-api-key': key.key, 'x-api-secret': key.secret } })).status).toBe(
        200,
      );
      expect(catalog.received.length).toBe(forwardedBefore + 1);
    } finally {
      // The harness closes the gateway itself; the cache and the proxy are this test's.
      await cache.close();
      await proxy.close();
    }
  });

  it('survives a client that aborts while sending its body', async () => {
    catalog.handle = (_req, res) => {
      res.writeHead(200);
      res.end();
    };
    const controller = new AbortController();
    const body = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode('['));
      },
    }); // never ends
    const pending = h
      .call('POST', '/api/Dac/import', key, {
        method: 'POST',
        body,
        signal: controller.signal,
        duplex: 'half',
        headers: { authorization: 'Bearer a.b.c', 'content-type': 'application/json' },
      } as RequestInit)
      .catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 100));
    controller.abort();
    await pending;
    expect((await h.call('GET', '/healthz', null)).status).toBe(200);
  });

  it('413 when the declared body is larger than the limit, before anything is forwarded', async () => {
    const before = catalog.received.length;
    const res = await h.call('POST', '/api/Users/Register', key, {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'x'.repeat(5000) }),
    });
    await expectError(res, 413, 'Payload too large');
    expect(catalog.received.length).toBe(before);
  });

  it('404 for an unknown /api route with a valid key, and for unknown paths outside /api', async () => {
    await expectError(await h.call('GET', '/api/Nothing', key), 404, 'Not found');
    await expectError(await h.call('GET', '/nothing', null), 404, 'Not found');
    await expectError(await h.call('GET', '/api/dac', key), 404, 'Not found'); // paths are case-sensitive
  });

  it('405 with Allow for a known path and another method', async () => {
    const res = await h.call('DELETE', '/api/Dac', key);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
    await expectError(res, 405, 'Method not allowed');
  });

  it('HEAD on a GET route is forwarded as HEAD: the status and headers of the upstream, no body', async () => {
    const before = catalog.received.length;
    catalog.handle = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '11', etag: '"v1"' });
      res.end('{"items":1}');
    };
    const res = await h.call('HEAD', '/api/Dac', key);
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toBe('"v1"');
    expect(res.headers.get('content-length')).toBe('11');
    expect(await res.text()).toBe('');
    expect(catalog.received.slice(before).map((r) => r.method)).toEqual(['HEAD']);
    // An error answer to HEAD keeps its status and headers, without the body.
    const denied = await h.call('HEAD', '/api/Dac', { key: key.key, secret: `${key.secret}x` });
    expect(denied.status).toBe(401);
    expect(await denied.text()).toBe('');
  });

  it('probes and the OpenAPI document need no key', async () => {
    expect((await h.call('GET', '/healthz', null)).status).toBe(200);
    const ready = await h.call('GET', '/readyz', null);
    expect(ready.status).toBe(503); // billing is down
    // Public: ready or not, nothing about what failed (the raw error names an internal address).
    expect(await ready.json()).toEqual({ ready: false });
    // The details are on the metrics listener (METRICS_PORT, never published).
    const details = await fetch(`${h.gateway.metricsServer!.url}/readyz`);
    expect(details.status).toBe(503);
    const { checks } = (await details.json()) as { checks: Record<string, string> };
    expect(checks).toMatchObject({ keys: 'ok', cache: 'ok', catalog: 'ok' });
    expect(checks.billing).not.toBe('ok');
    const openapi = await h.call('GET', '/openapi.json', null);
    expect(openapi.status).toBe(200);
    expect(((await openapi.json()) as { openapi: string }).openapi).toBe('3.1.0');
  });
});
