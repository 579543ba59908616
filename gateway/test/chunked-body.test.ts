import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { metricValue, rawHttpExchange, startFakeUpstream, type FakeUpstream } from '@acs/testing';
import { startGatewayHarness, type GatewayHarness } from './harness.js';

// Issue 13, item 1: bodies sent with Transfer-Encoding: chunked (no Content-Length) are forwarded,
// and MAX_BODY_BYTES holds for them while they stream.
const LIMIT = 64 * 1024;
let h: GatewayHarness;
let catalog: FakeUpstream;
let key: { key: string; secret: string };

beforeAll(async () => {
  catalog = await startFakeUpstream();
  h = await startGatewayHarness({ CATALOG_URL: catalog.url }, { MAX_BODY_BYTES: String(LIMIT) });
  key = await h.createKey(['system:full-access']);
});
afterAll(async () => {
  await h.close();
  await catalog.close();
});

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** Sends `chunks` one write at a time with no Content-Length; node:http chunks only POST-like methods by itself, so it is asked to. */
function sendChunked(method: string, path: string, chunks: Buffer[], headers: Record<string, string> = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${h.url}${path}`,
      {
        method,
        headers: {
          'x-api-key': key.key,
          'x-api-secret': key.secret,
          'content-type': 'application/json',
          'transfer-encoding': 'chunked',
          ...headers,
        },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    let i = 0;
    const writeNext = (): void => {
      while (i < chunks.length) {
        if (req.destroyed) return;
        if (!req.write(chunks[i++]!)) {
          req.once('drain', writeNext);
          return;
        }
      }
      req.end();
    };
    writeNext();
  });
}

describe('chunked request bodies through the gateway', () => {
  it('forwards a chunked body to the service: no 502, the body arrives whole', async () => {
    catalog.handle = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    };
    const before = catalog.received.length;
    const res = await sendChunked('GET', '/api/Dac', [Buffer.from('{"a":'), Buffer.from('1}')]);
    expect(res.status).toBe(200);
    expect(catalog.received.length).toBe(before + 1);
    expect(catalog.received.at(-1)!.body).toBe('{"a":1}');
    expect(JSON.parse(res.body)).toEqual({ ok: true });
  });

  it('forwards a chunked body of exactly the limit', async () => {
    catalog.handle = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    };
    const res = await sendChunked('GET', '/api/Dac', [Buffer.alloc(LIMIT / 2, 'a'), Buffer.alloc(LIMIT / 2, 'b')]);
    expect(res.status).toBe(200);
    expect(catalog.received.at(-1)!.body.length).toBe(LIMIT);
  });

  it('answers 413 in the error shape while a chunked body streams past the limit, and closes the connection', async () => {
    let upstreamSaw = 0;
    catalog.handle = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    };
    const chunk = Buffer.alloc(16 * 1024, 'x');
    // Far more than the limit: the answer must come while the client is still sending, not after it all.
    const chunks = Array.from({ length: 4096 }, () => chunk); // 64 MiB
    const res = await sendChunked('GET', '/api/Dac', chunks).catch(
      (err: unknown) => ({ status: -1, headers: {}, body: String(err) }) as RawAnswer,
    );
    upstreamSaw = catalog.received.length;
    expect(res.status).toBe(413);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers.connection).toBe('close');
    expect(JSON.parse(res.body)).toMatchObject({
      error: 'Payload too large',
      message: expect.stringContaining(String(LIMIT)),
      requestId: res.headers['x-request-id'],
    });
    // The gateway is still fine afterwards.
    expect((await h.call('GET', '/api/Dac', key)).status).toBe(200);
    expect(catalog.received.length).toBe(upstreamSaw + 1);
    const metrics = await (await fetch(`${h.gateway.metricsServer!.url}/metrics`)).text();
    expect(metricValue(metrics, 'http_server_requests_total', { route: '/api/Dac', status: '413' })).toBe(1);
  });

  it('a request refused before its chunked body arrived is answered at once, and the connection closed', async () => {
    // No key: 401 straight away; the body (which never ends here) is not read for the next request's sake.
    const answer = await rawHttpExchange(
      h.gateway.server.port,
      'POST /api/Users/Login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"a":\r\n',
      5_000,
    );
    expect(answer.status).toBe(401);
    expect(answer.headers.connection).toBe('close');
    expect(JSON.parse(answer.body)).toMatchObject({ error: 'Missing authentication headers' });
  });
});
