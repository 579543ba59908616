import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Writable } from 'node:stream';
import { z } from 'zod';
import { signContext } from '@acs/auth';
import { createLogger } from '@acs/logger';
import { createMetricsRegistry } from '@acs/metrics';
import { metricSamples, metricValue } from '@acs/testing';
import { Router, createHttpApp, listen, parseInput, readJsonBody, type AppState, type RunningServer } from '@acs/http';

const SECRET = 'internal-secret-for-http-tests-0123456789';
const logLines: string[] = [];
const logger = createLogger({
  name: 'http-test',
  destination: new Writable({
    write(chunk, _enc, cb) {
      logLines.push(String(chunk));
      cb();
    },
  }),
});

const router = new Router<AppState>();
router.post('/things', async (ctx) => {
  const body = parseInput(z.object({ name: z.string().min(1), count: z.number().int() }), await readJsonBody(ctx, 1024), 'body');
  ctx.status = 201;
  ctx.body = { ...body, caller: ctx.state.caller?.keyId };
});
router.get('/things/:id', (ctx) => {
  ctx.body = { id: ctx.params.id };
});
router.get('/boom', () => {
  throw new Error('connection string postgres://admin:hunter2@db leaked');
});
const readiness = {
  db: async () => 'ok',
  cache: async () => {
    throw new Error('cache down');
  },
};

let server: RunningServer;
beforeAll(async () => {
  server = await listen(
    createHttpApp({
      service: 'http-test',
      logger,
      internalSecret: SECRET,
      routers: [router],
      metrics: createMetricsRegistry('http-test'),
      readiness,
    }).callback(),
  );
});
afterAll(async () => server.close());

function signed(method: string, path: string, init: RequestInit = {}): Promise<Response> {
  const { context, signature } = signContext(SECRET, 'http-test', method, path, { requestId: 'r', keyId: 'key-1', scopes: [] });
  return fetch(server.url + path, {
    ...init,
    method,
    headers: { 'x-acs-context': context, 'x-acs-signature': signature, ...(init.headers as Record<string, string>) },
  });
}

const json = { 'content-type': 'application/json' };

describe('http app', () => {
  it('passes a valid signed request to the route with the caller context', async () => {
    const res = await signed('POST', '/things', { headers: json, body: JSON.stringify({ name: 'a', count: 2 }) });
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ name: 'a', count: 2, caller: 'key-1' });
  });

  it('refuses requests that did not come through the gateway', async () => {
    const res = await fetch(`${server.url}/things`, { method: 'POST', headers: json, body: '{}' });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: 'Unauthorized' });
  });

  it('keeps a plain caller request id and replaces a hostile one', async () => {
    const kept = await fetch(`${server.url}/healthz`, { headers: { 'x-request-id': 'abc-123' } });
    expect(kept.headers.get('x-request-id')).toBe('abc-123');
    const replaced = await fetch(`${server.url}/healthz`, { headers: { 'x-request-id': 'evil\tvalue' } });
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers probes without a signature, with per-dependency readiness', async () => {
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ ready: false, checks: { db: 'ok', cache: 'cache down' } });
  });

  it('gives 404 and 405 in the error shape', async () => {
    const missing = await signed('GET', '/nowhere');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: 'Not found', requestId: expect.any(String) });
    const wrongMethod = await signed('DELETE', '/things');
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toContain('POST');
    expect(await wrongMethod.json()).toMatchObject({ error: 'Method not allowed' });
  });

  it('validates bodies: malformed JSON, wrong types, missing body, wrong media type', async () => {
    const malformed = await signed('POST', '/things', { headers: json, body: '{"name":' });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({
      message: 'The request body is not valid JSON',
      code: 'invalid_json',
      hint: expect.stringContaining('line 1, column 9 (position 8)'),
      details: [{ path: 'body', message: expect.stringContaining('found the end of the body') }],
    });
    const wrong = await signed('POST', '/things', { headers: json, body: JSON.stringify({ name: '', count: 'x' }) });
    expect(wrong.status).toBe(400);
    const body = (await wrong.json()) as { code: string; hint: string; details: { path: string; message: string }[] };
    expect(body.code).toBe('validation_failed');
    expect(body.hint).toContain('details');
    expect(body.details.map((d) => d.path).sort()).toEqual(['body.count', 'body.name']);
    // Each detail says what was expected there and what came (input-messages.ts).
    expect(body.details.find((d) => d.path === 'body.count')?.message).toBe('expected a number, not a string');
    const missing = await signed('POST', '/things', { headers: json });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ code: 'body_required' });
    const plain = await signed('POST', '/things', { headers: { 'content-type': 'text/plain' }, body: 'hi' });
    expect(plain.status).toBe(415);
    expect(await plain.json()).toMatchObject({ code: 'unsupported_media_type', hint: expect.stringContaining('application/json') });
  });

  it('refuses oversized bodies with 413, declared or streamed', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(5000), count: 1 });
    expect((await signed('POST', '/things', { headers: json, body: big })).status).toBe(413);
    const stream = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode(big));
        c.close();
      },
    });
    const chunked = await signed('POST', '/things', { headers: json, body: stream, duplex: 'half' } as RequestInit);
    expect(chunked.status).toBe(413);
  });

  it('answers unexpected failures with a bare 500 and logs the cause', async () => {
    const res = await signed('GET', '/boom');
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(text).not.toContain('hunter2');
    expect(JSON.parse(text)).toMatchObject({ error: 'Internal server error' });
    expect(logLines.some((line) => line.includes('request failed'))).toBe(true);
  });

  it('serves /metrics without a signature, counting requests by route pattern, never by raw URL', async () => {
    expect((await signed('GET', '/things/secret-id-42?email=ada@example.com')).status).toBe(200);
    expect((await signed('GET', '/things/other-id')).status).toBe(200);
    expect((await fetch(`${server.url}/things/unsigned`)).status).toBe(401);
    const res = await fetch(`${server.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await res.text();
    expect(
      metricValue(text, 'http_server_requests_total', { service: 'http-test', method: 'GET', route: '/things/:id', status: '200' }),
    ).toBe(2);
    // Refused before routing: the route is not known then, and the raw path must not stand in for it.
    expect(metricValue(text, 'http_server_requests_total', { route: 'unmatched', status: '401' })).toBeGreaterThanOrEqual(1);
    expect(metricValue(text, 'http_server_request_duration_seconds_count', { route: '/things/:id', status: '200' })).toBe(2);
    const routes = metricSamples(text, 'http_server_requests_total').map((sample) => sample.labels.route);
    expect(routes.some((route) => route?.includes('secret-id') || route?.includes('unsigned') || route?.includes('@'))).toBe(false);
    expect(text).not.toContain('ada@example.com');
    expect(metricValue(text, 'process_cpu_user_seconds_total', { service: 'http-test' })).toBeGreaterThanOrEqual(0);
  });
});
