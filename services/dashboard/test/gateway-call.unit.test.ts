import { describe, expect, it } from '@jest/globals';
import { createSubscriptionEndpoint, listCatalogEndpoint, replayWebhookDeliveryEndpoint } from '@acs/contracts';
import { createLogger } from '@acs/logger';
import { requestHeaders } from '../src/gateway-client/gateway-exchange.js';
import { callOf, type CallerContext } from '../src/gateway-client/operation-call.js';

const log = createLogger({ name: 'gateway-call-test', level: 'silent' });
const ctx: CallerContext = { requestId: 'req-1', log, token: 'user-jwt', clientAddress: '203.0.113.7', userAgent: 'Firefox' };
const credentials = { apiKey: 'acs_live_dashboard', apiSecret: 'dashboard-secret' };

describe('the call of an operation', () => {
  it('takes method and path from the contract, fills the ids encoded, and appends the query', () => {
    const call = callOf(replayWebhookDeliveryEndpoint, ctx, { id: 'w 1', params: { deliveryId: 'd/2' }, query: 'x=1' });
    expect(call.method).toBe(replayWebhookDeliveryEndpoint.method);
    expect(call.path).toBe('/api/Webhooks/w%201/Deliveries/d%2F2/Replay?x=1');
  });

  it("carries the caller's context and the call's own options, which win over the context's", () => {
    const call = callOf(createSubscriptionEndpoint, ctx, { body: { planId: 'p1' }, idempotencyKey: 'k1' });
    expect(call).toEqual({ ...ctx, method: 'POST', path: '/api/Subscriptions', body: { planId: 'p1' }, idempotencyKey: 'k1' });
    expect(callOf(listCatalogEndpoint, ctx, { token: null }).token).toBeNull();
  });
});

describe('the headers of a gateway call', () => {
  it("send the dashboard's key with every call, and the user's token, address and browser when the call has them", () => {
    const headers = requestHeaders({ ...callOf(createSubscriptionEndpoint, ctx, { body: {}, idempotencyKey: 'k1' }) }, credentials);
    expect(headers).toEqual({
      accept: 'application/json',
      'x-api-key': 'acs_live_dashboard',
      'x-api-secret': 'dashboard-secret',
      'x-request-id': 'req-1',
      authorization: 'Bearer user-jwt',
      'idempotency-key': 'k1',
      'x-forwarded-for': '203.0.113.7',
      'user-agent': 'Firefox',
      'content-type': 'application/json',
    });
  });

  it('send nothing else for a call without a token, body or browser', () => {
    const headers = requestHeaders({ method: 'GET', path: '/api/Dac', requestId: 'req-2', log, token: null }, credentials);
    expect(Object.keys(headers).sort()).toEqual(['accept', 'x-api-key', 'x-api-secret', 'x-request-id']);
  });
});
