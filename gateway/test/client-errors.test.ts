import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { malformedRequestLine, oversizedHeadersRequest, rawHttpExchange, type RawAnswer } from '@acs/testing';
import { startGatewayHarness, type GatewayHarness } from './harness.js';

// Issue 13, item 4, on the gateway: 431 and 400 from node:http itself carry the error shape.
let h: GatewayHarness;
beforeAll(async () => {
  h = await startGatewayHarness();
});
afterAll(async () => h.close());

function expectErrorShape(answer: RawAnswer, status: number, error: string): void {
  expect(answer.status).toBe(status);
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  expect(Number(answer.headers['content-length'])).toBe(Buffer.byteLength(answer.body));
  expect(answer.headers.connection).toBe('close');
  expect(JSON.parse(answer.body)).toEqual({
    error,
    message: expect.any(String),
    code: expect.any(String),
    requestId: answer.headers['x-request-id'],
  });
}

describe('gateway answers made before its handler runs', () => {
  it('431 in the error shape for a 17 KiB Authorization header on an /api route', async () => {
    expectErrorShape(
      await rawHttpExchange(h.gateway.server.port, oversizedHeadersRequest('/api/Devices')),
      431,
      'Request header fields too large',
    );
  });

  it('431 for a 17 KiB query', async () => {
    expectErrorShape(
      await rawHttpExchange(h.gateway.server.port, `GET /api/Dac?brand=${'a'.repeat(17 * 1024)} HTTP/1.1\r\nHost: x\r\n\r\n`),
      431,
      'Request header fields too large',
    );
  });

  it('400 in the error shape for a malformed request line', async () => {
    expectErrorShape(await rawHttpExchange(h.gateway.server.port, malformedRequestLine), 400, 'Bad request');
  });

  it('the gateway still answers afterwards', async () => {
    expect((await h.call('GET', '/healthz', null)).status).toBe(200);
  });
});
