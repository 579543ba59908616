import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { DEFAULT_RETRY_DELAYS_MS, subscriptionQueueNames } from '@acs/bus';
import { webhookCreatedResponseSchema, webhookDeliveriesResponseSchema } from '@acs/contracts';
import { deleteAmqpObjects, listenOnLoopback, uniqueName, waitFor } from '@acs/testing';
import { appKey, bearer, json, newUser, type Auth } from './actors.js';
import { startSystemUnderTest, type SystemUnderTest } from './system-harness.js';

// Issue 30 (webhooks) through the gateway, on PostgreSQL and RabbitMQ: a key created through the API
// reaches the user's endpoint signed (verified with the standardwebhooks package), and an endpoint
// that never answers delays neither the request that caused the event nor other users' deliveries.
const queue = uniqueName('webhooks_e2e');
let sut: SystemUnderTest;
let app: Auth;
let dashboard: Auth;
let receiver: Server;
let receiverUrl: string;
const received: { path: string; headers: Record<string, string>; body: string }[] = [];
const hanging = new Set<ServerResponse>();

function receive(req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    received.push({
      path: req.url ?? '/',
      headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])),
      body: Buffer.concat(chunks).toString('utf8'),
    });
    if (req.url === '/never')
      hanging.add(res); // never answered
    else res.writeHead(204).end();
  });
}

beforeAll(async () => {
  receiver = createServer(receive);
  receiverUrl = `http://127.0.0.1:${await listenOnLoopback(receiver)}`;
  sut = await startSystemUnderTest({
    AMQP_URL: process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672',
    BUS_EXCHANGE: uniqueName('webhooks_e2e_ex'),
    WEBHOOKS_QUEUE: queue,
    WEBHOOKS_POLL_INTERVAL_MS: '200',
    WEBHOOKS_TIMEOUT_MS: '30000',
    WEBHOOKS_CLAIM_LEASE_MS: '60000',
  });
  app = await appKey(sut, ['auth:register', 'auth:login']);
  dashboard = await appKey(sut, ['system:full-access']);
}, 120_000);
afterAll(async () => {
  for (const res of hanging) res.destroy();
  receiver?.closeAllConnections();
  await new Promise((resolve) => receiver?.close(resolve));
  await sut?.stop();
  await deleteAmqpObjects({ queues: subscriptionQueueNames(queue, DEFAULT_RETRY_DELAYS_MS) });
});

const items = received.filter.bind(received);

async function register(token: string, path: string, events: string[]) {
  const response = await sut.call('POST', '/api/Webhooks', dashboard, bearer(token, json({ url: receiverUrl + path, events })));
  expect(response.status).toBe(201);
  return webhookCreatedResponseSchema.parse(await response.json());
}

describe('webhooks through the gateway', () => {
  it('delivers api_key.created, signed so standardwebhooks verifies it, and logs the delivery', async () => {
    const user = await newUser(sut, app);
    const endpoint = await register(user.token, '/created', ['api_key.created', 'api_key.revoked']);
    const created = await sut.call('POST', '/api/ApiKeys', dashboard, bearer(user.token, json({ name: 'hooked', scopes: 'read:devices' })));
    expect(created.status).toBe(201);
    const key = (await created.json()) as { id: string; secret: string };
    const [request] = await waitFor('the webhook', () => {
      const got = items((r) => r.path === '/created');
      return got.length > 0 ? got : null;
    });
    const payload = new Webhook(endpoint.secret).verify(request!.body, request!.headers) as { type: string; data: { keyId: string } };
    expect(payload).toMatchObject({ type: 'api_key.created', data: { keyId: key.id, name: 'hooked' } });
    expect(request!.body).not.toContain(key.secret);

    const log = await waitFor('the delivery logged', async () => {
      const response = await sut.call('GET', `/api/Webhooks/${endpoint.id}/Deliveries`, dashboard, bearer(user.token));
      const page = webhookDeliveriesResponseSchema.parse(await response.json());
      return page.items[0]?.status === 'delivered' ? page : null;
    });
    expect(log.items[0]).toMatchObject({ id: request!.headers['webhook-id'], eventType: 'api_key.created', lastStatus: 204, attempts: 1 });

    // Someone else's endpoint is not there for another user.
    const other = await newUser(sut, app);
    expect((await sut.call('GET', `/api/Webhooks/${endpoint.id}`, dashboard, bearer(other.token))).status).toBe(404);
    expect((await sut.call('GET', '/api/Webhooks', dashboard, bearer(other.token, {}))).status).toBe(200);
  });

  it("with an endpoint that never answers: the API request that caused the event answers, and another user's webhook arrives", async () => {
    const slow = await newUser(sut, app);
    const fast = await newUser(sut, app);
    await register(slow.token, '/never', ['api_key.created']);
    const fastEndpoint = await register(fast.token, '/fast', ['api_key.created']);
    for (let i = 0; i < 3; i++) {
      const response = await sut.call(
        'POST',
        '/api/ApiKeys',
        dashboard,
        bearer(slow.token, json({ name: `slow ${i}`, scopes: 'read:devices' })),
      );
      expect(response.status).toBe(201); // answered while its webhook hangs
    }
    await waitFor('the slow endpoint called', () => items((r) => r.path === '/never').length > 0);
    expect(
      (await sut.call('POST', '/api/ApiKeys', dashboard, bearer(fast.token, json({ name: 'fast', scopes: 'read:devices' })))).status,
    ).toBe(201);
    const [request] = await waitFor('the other user’s webhook', () => {
      const got = items((r) => r.path === '/fast');
      return got.length > 0 ? got : null;
    });
    expect(() => new Webhook(fastEndpoint.secret).verify(request!.body, request!.headers)).not.toThrow();
    expect(hanging.size).toBeGreaterThan(0); // the slow endpoint still has not answered
  });

  it('lists the operations in the OpenAPI document and refuses an unknown event naming the field', async () => {
    const document = (await (await fetch(`${sut.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { operationId: string }>>;
    };
    expect(document.paths['/api/Webhooks']?.post?.operationId).toBe('createWebhook');
    expect(document.paths['/api/Webhooks/{id}/Deliveries/{deliveryId}/Replay']?.post?.operationId).toBe('replayWebhookDelivery');
    const user = await newUser(sut, app);
    const response = await sut.call(
      'POST',
      '/api/Webhooks',
      dashboard,
      bearer(user.token, json({ url: `${receiverUrl}/x`, events: ['key.made'] })),
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 'validation_failed', details: [{ path: 'body.events.0' }] });
  });
});
