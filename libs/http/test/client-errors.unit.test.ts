import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { listen, type RunningServer } from '@acs/http';
import { malformedRequestLine, oversizedHeadersRequest, rawHttpExchange, type RawAnswer } from '@acs/testing';

// Issue 13, item 4: answers node:http makes before any handler runs carry the error shape.
let server: RunningServer;
let handled = 0;
beforeAll(async () => {
  server = await listen(
    (_req, res) => {
      handled++;
      res.end('handled');
    },
    0,
    '127.0.0.1',
    // Long enough that a loaded machine still delivers a 17 KiB header before the timeout (at 300 ms
    // a CI run answered that one 408), short enough for the 408 case to take about two seconds.
    { headersTimeout: 2000, requestTimeout: 2000, connectionsCheckingInterval: 50 },
  );
});
afterAll(async () => server.close());

function expectErrorShape(answer: RawAnswer, status: number, error: string): void {
  expect(answer.status).toBe(status);
  expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(Number(answer.headers['content-length'])).toBe(Buffer.byteLength(answer.body));
  expect(answer.headers.connection).toBe('close');
  const body = JSON.parse(answer.body) as Record<string, unknown>;
  expect(body).toEqual({ error, message: expect.any(String), code: expect.any(String), requestId: answer.headers['x-request-id'] });
}

describe('answers node:http makes before the handler', () => {
  it('431 for headers past the limit (a 17 KiB Authorization header)', async () => {
    expectErrorShape(await rawHttpExchange(server.port, oversizedHeadersRequest()), 431, 'Request header fields too large');
  });

  it('431 for a query string past the limit', async () => {
    expectErrorShape(
      await rawHttpExchange(server.port, `GET /?q=${'a'.repeat(17 * 1024)} HTTP/1.1\r\nHost: x\r\n\r\n`),
      431,
      'Request header fields too large',
    );
  });

  it('400 for a malformed request line, and for a header with a NUL', async () => {
    expectErrorShape(await rawHttpExchange(server.port, malformedRequestLine), 400, 'Bad request');
    expectErrorShape(await rawHttpExchange(server.port, 'GET / HTTP/1.1\r\nHost: x\r\nX-A: a\u0000b\r\n\r\n'), 400, 'Bad request');
  });

  it('408 for a request whose headers never finish', async () => {
    expectErrorShape(await rawHttpExchange(server.port, 'GET / HTTP/1.1\r\nHost: x\r\n'), 408, 'Request timeout');
  });

  it('417 for an Expect header other than 100-continue, 405 for CONNECT (node would hang up without a word)', async () => {
    expectErrorShape(
      await rawHttpExchange(server.port, 'POST / HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\nContent-Length: 0\r\n\r\n'),
      417,
      'Expectation failed',
    );
    expectErrorShape(
      await rawHttpExchange(server.port, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n'),
      405,
      'Method not allowed',
    );
  });

  it('a well-formed request still reaches the handler', async () => {
    const before = handled;
    const answer = await rawHttpExchange(server.port, 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(answer.status).toBe(200);
    expect(answer.body).toBe('handled');
    expect(handled).toBe(before + 1);
  });
});
