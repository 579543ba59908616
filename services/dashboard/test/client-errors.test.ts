import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLogger } from '@acs/logger';
import { malformedRequestLine, oversizedHeadersRequest, rawHttpExchange, unusedPort, type RawAnswer } from '@acs/testing';
import { dashboardConfigSchema, startDashboard, type DashboardService } from '@acs/dashboard-service';

// Issue 13, item 4, on the dashboard: 431 and 400 from node:http itself carry the error shape.
// Nothing here reaches the handler, so the gateway it would call need not exist.
let dashboard: DashboardService;
beforeAll(async () => {
  const config = dashboardConfigSchema.parse({
    PORT: '0',
    HOST: '127.0.0.1',
    GATEWAY_URL: `http://127.0.0.1:${await unusedPort()}`,
    DASHBOARD_API_KEY: 'acs_test_ClientErrorTestKey000000001',
    DASHBOARD_API_SECRET: 'client-error-test-secret-long-enough-0000',
    SESSION_SECRET: 'client-error-test-session-secret-0123456789',
    COOKIE_SECURE: 'false',
  });
  dashboard = await startDashboard(config, createLogger({ name: 'dashboard-test', level: 'silent' }));
});
afterAll(async () => dashboard.close());

function expectErrorShape(answer: RawAnswer, status: number, error: string): void {
  expect(answer.status).toBe(status);
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  expect(Number(answer.headers['content-length'])).toBe(Buffer.byteLength(answer.body));
  expect(answer.headers.connection).toBe('close');
  // Every error body carries a machine-readable code beside the spec's error and message (libs/errors).
  expect(JSON.parse(answer.body)).toEqual({
    error,
    message: expect.any(String),
    code: expect.any(String),
    requestId: answer.headers['x-request-id'],
  });
}

describe('dashboard answers made before its handler runs', () => {
  it('431 in the error shape for a 17 KiB header', async () => {
    expectErrorShape(
      await rawHttpExchange(dashboard.server.port, oversizedHeadersRequest('/keys')),
      431,
      'Request header fields too large',
    );
  });

  it('400 in the error shape for a malformed request line', async () => {
    expectErrorShape(await rawHttpExchange(dashboard.server.port, malformedRequestLine), 400, 'Bad request');
  });
});
