import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { webhookCreatedResponseSchema, webhookListResponseSchema, webhookViewSchema } from '@acs/contracts';
import { newUserId, World, type Harness } from './harness.js';

// The endpoints API on its own: shapes, validation naming the field, and nobody reaching another user's endpoint.
let world: World;
let webhooks: Harness;

beforeAll(async () => {
  world = await World.open();
  webhooks = await world.service();
}, 30_000);
afterAll(async () => world?.close());

describe('the webhook endpoints API', () => {
  it('registers, lists, changes, pauses and deletes an endpoint, showing the secret only at registration', async () => {
    const userId = newUserId();
    const created = await webhooks.call('POST', '/api/Webhooks', userId, {
      url: 'http://127.0.0.1:1/hook',
      events: ['api_key.created', 'quota.threshold', 'api_key.created'],
      description: 'CI',
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    const body = webhookCreatedResponseSchema.parse(await created.json());
    expect(body).toMatchObject({ events: ['api_key.created', 'quota.threshold'], description: 'CI', enabled: true, disabledReason: null });

    const list = webhookListResponseSchema.parse(await (await webhooks.call('GET', '/api/Webhooks', userId)).json());
    expect(list.items.map((item) => item.id)).toEqual([body.id]);
    expect(JSON.stringify(list)).not.toContain(body.secret);

    const paused = webhookViewSchema.parse(
      await (await webhooks.call('PATCH', `/api/Webhooks/${body.id}`, userId, { enabled: false, events: ['subscription.changed'] })).json(),
    );
    expect(paused).toMatchObject({ enabled: false, disabledReason: 'owner', events: ['subscription.changed'] });
    const resumed = webhookViewSchema.parse(
      await (await webhooks.call('PATCH', `/api/Webhooks/${body.id}`, userId, { enabled: true })).json(),
    );
    expect(resumed).toMatchObject({ enabled: true, disabledReason: null, disabledAt: null });

    expect((await webhooks.call('DELETE', `/api/Webhooks/${body.id}`, userId)).status).toBe(200);
    expect((await webhooks.call('GET', `/api/Webhooks/${body.id}`, userId)).status).toBe(404);
  });

  it("answers 404 for someone else's endpoint on every operation, and for an id that is not a UUID", async () => {
    const owner = newUserId();
    const { id } = await webhooks.register(owner, 'http://127.0.0.1:1/theirs');
    const stranger = newUserId();
    const calls: [string, string, unknown?][] = [
      ['GET', `/api/Webhooks/${id}`],
      ['PATCH', `/api/Webhooks/${id}`, { enabled: false }],
      ['DELETE', `/api/Webhooks/${id}`],
      ['POST', `/api/Webhooks/${id}/RotateSecret`],
      ['GET', `/api/Webhooks/${id}/Deliveries`],
      ['POST', `/api/Webhooks/${id}/Deliveries/${id}/Replay`],
      ['GET', '/api/Webhooks/not-a-uuid'],
    ];
    for (const [method, path, body] of calls) {
      const response = await webhooks.call(method, path, stranger, body);
      expect([method, path, response.status]).toEqual([method, path, 404]);
      expect(await response.json()).toMatchObject({ code: expect.stringMatching(/^webhook_(delivery_)?not_found$/) });
    }
    expect((await webhooks.call('GET', `/api/Webhooks/${id}`, owner)).status).toBe(200);
    expect((await (await webhooks.call('GET', '/api/Webhooks', stranger)).json()) as unknown).toEqual({ items: [] });
  });

  it.each([
    [{ url: 'http://127.0.0.1:1/', events: ['api_key.deleted'] }, 'body.events.0'],
    [{ url: 'http://127.0.0.1:1/', events: [] }, 'body.events'],
    [{ events: ['api_key.created'] }, 'body.url'],
    [{ url: 'http://127.0.0.1:1/', events: ['api_key.created'], secret: 'mine' }, 'body.secret'],
  ])('refuses %j with 400 naming the field', async (body, path) => {
    const response = await webhooks.call('POST', '/api/Webhooks', newUserId(), body);
    expect(response.status).toBe(400);
    const error = (await response.json()) as { code: string; details: { path: string }[] };
    expect(error.code).toBe('validation_failed');
    expect(error.details.map((d) => d.path)).toContain(path);
  });

  it('pages the delivery log with a cursor', async () => {
    const userId = newUserId();
    const { id } = await webhooks.register(userId, 'http://127.0.0.1:1/paged');
    await webhooks.service.db.query(
      `INSERT INTO deliveries (endpoint_id, event_id, event_type, body, status)
       SELECT $1, gen_random_uuid(), 'api_key.created', '{}', 'failed' FROM generate_series(1, 5)`,
      [id],
    );
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const response = await webhooks.call('GET', `/api/Webhooks/${id}/Deliveries?pageSize=2${cursor ? `&cursor=${cursor}` : ''}`, userId);
      expect(response.status).toBe(200);
      const page = (await response.json()) as { items: { id: string }[]; nextCursor: string | null };
      seen.push(...page.items.map((item) => item.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toHaveLength(5);
    expect(new Set(seen).size).toBe(5);
    expect((await webhooks.call('GET', `/api/Webhooks/${id}/Deliveries?cursor=bogus`, userId)).status).toBe(400);
  });
});

describe('registration without private URLs allowed', () => {
  it.each([
    ['http://hooks.example.com/', 'url must be https'],
    ['https://127.0.0.1/', 'not public'],
    ['https://[::ffff:10.0.0.1]/', 'not public'],
    ['https://169.254.169.254/latest/meta-data/', 'not public'],
    ['https://metadata.test/', 'resolves to 169.254.169.254'],
  ])('refuses %s', async (url, message) => {
    const strict = await strictService();
    const response = await strict.call('POST', '/api/Webhooks', newUserId(), { url, events: ['api_key.created'] });
    expect(response.status).toBe(400);
    const error = (await response.json()) as { code: string; message: string; details: { path: string }[] };
    expect(error).toMatchObject({ code: 'webhook_url_not_allowed', details: [{ path: 'body.url' }] });
    expect(error.message).toContain(message);
  });

  it('accepts an https URL whose host resolves to public addresses', async () => {
    const strict = await strictService();
    expect(
      (await strict.call('POST', '/api/Webhooks', newUserId(), { url: 'https://hooks.example.com/in', events: ['quota.threshold'] }))
        .status,
    ).toBe(201);
  });
});

let strictHarness: Harness | undefined;
async function strictService(): Promise<Harness> {
  strictHarness ??= await world.service(
    { WEBHOOKS_ALLOW_PRIVATE_URLS: 'false' },
    { resolve: async (host) => ({ 'hooks.example.com': ['93.184.216.34'], 'metadata.test': ['169.254.169.254'] })[host] ?? [] },
  );
  return strictHarness;
}
