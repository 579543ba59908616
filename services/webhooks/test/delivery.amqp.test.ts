import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Webhook } from 'standardwebhooks';
import { openDatabase } from '@acs/db';
import { silentLogger, waitFor } from '@acs/testing';
import { resealSecrets } from '../src/data-access/reseal-secrets.js';
import { secretBox } from '../src/domain/secret-box.js';
import { newUserId, Receiver, World, type Harness } from './harness.js';

// Deliveries end to end on PostgreSQL and RabbitMQ: events published as keys publishes them, a
// receiver that verifies with the standardwebhooks package (not our code).
let world: World;
let receiver: Receiver;
let webhooks: Harness;

beforeAll(async () => {
  world = await World.open();
  receiver = await Receiver.start();
  // Failures retry every ≤100 ms and give up after 1 s; a claim lapses after 4 s.
  webhooks = await world.service({ WEBHOOKS_RETRY_SCHEDULE: '100ms', WEBHOOKS_GIVE_UP_AFTER_SECONDS: '1' });
}, 30_000);
afterAll(async () => {
  await world?.close();
  await receiver?.close();
});

const verify = (secret: string, request: { body: string; headers: Record<string, string> }) =>
  new Webhook(secret).verify(request.body, request.headers);

describe('a delivery', () => {
  it('reaches the endpoint signed, verifiable by standardwebhooks, once per event even when the event comes twice', async () => {
    const userId = newUserId();
    const url = receiver.on('/created', () => 200);
    const { id, secret } = await webhooks.register(userId, url, ['api_key.created']);
    const other = await webhooks.register(
      newUserId(),
      receiver.on('/someone-else', () => 200),
      ['api_key.created'],
    );
    const event = await webhooks.publishKeyEvent(userId);
    const [request] = await waitFor('the delivery', () => (receiver.at('/created').length > 0 ? receiver.at('/created') : null));
    const payload = verify(secret, request!) as { type: string; timestamp: string; data: Record<string, unknown> };
    expect(payload).toMatchObject({
      type: 'api_key.created',
      timestamp: event.occurredAt,
      data: { name: 'ci key', scopes: ['read:devices'] },
    });
    expect(payload.data).not.toHaveProperty('userId');
    expect(payload.data).not.toHaveProperty('sequence');
    expect(request!.headers['content-type']).toBe('application/json');

    await waitFor('the delivery recorded as delivered', async () => (await webhooks.deliveries(userId, id))[0]?.status === 'delivered');
    const [delivery] = await webhooks.deliveries(userId, id);
    expect(delivery).toMatchObject({ id: request!.headers['webhook-id'], attempts: 1, lastStatus: 200, lastError: null });

    // The broker delivering the same event again (a publisher's retry) makes no second delivery.
    await webhooks.publishKeyEvent(userId, 'created', event.id);
    const marker = await webhooks.publishKeyEvent(userId); // events of one queue are handled in order here
    await waitFor('the next event', () => receiver.at('/created').length >= 2);
    expect(receiver.at('/created').map((r) => (verify(secret, r) as { timestamp: string }).timestamp)).toEqual([
      event.occurredAt,
      marker.occurredAt,
    ]);
    expect(receiver.at('/someone-else')).toHaveLength(0);
    expect(await webhooks.deliveries(newUserId(), other.id).catch((err: Error) => err.message)).toBe('deliveries answered 404');
  });

  it('is not lost when the sender dies mid-request: the restarted sender sends it again with the same webhook-id', async () => {
    const userId = newUserId();
    let release: (status: number) => void = () => {};
    let calls = 0;
    const url = receiver.on('/killed', () => {
      calls += 1;
      return calls === 1 ? new Promise<number>((resolve) => (release = resolve)) : 200;
    });
    const { id, secret } = await webhooks.register(userId, url);
    await webhooks.publishKeyEvent(userId);
    await waitFor('the first attempt in flight', () => receiver.at('/killed').length === 1);
    await webhooks.service.sender.abandon(); // as a crash: the attempt is never recorded
    release(200);
    webhooks.service.startSender();
    await waitFor('the attempt again after the claim lapsed', () => receiver.at('/killed').length === 2, 15_000);
    const [first, second] = receiver.at('/killed');
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect(second!.body).toBe(first!.body);
    expect(() => verify(secret, second!)).not.toThrow();
    await waitFor('delivered', async () => (await webhooks.deliveries(userId, id))[0]?.status === 'delivered');
    expect((await webhooks.deliveries(userId, id))[0]).toMatchObject({ id: first!.headers['webhook-id'], attempts: 2 });
  }, 30_000);

  it("of an endpoint that never answers holds neither other users' deliveries nor the events behind it", async () => {
    const slowUser = newUserId();
    const fastUser = newUserId();
    let answer: (status: number) => void = () => {};
    const hanging = new Promise<number>((resolve) => (answer = resolve));
    await webhooks.register(
      slowUser,
      receiver.on('/never', () => hanging),
    );
    const fast = await webhooks.register(
      fastUser,
      receiver.on('/fast', () => 200),
    );
    for (let i = 0; i < 5; i++) await webhooks.publishKeyEvent(slowUser);
    await waitFor('the slow endpoint holding its slots', () => receiver.at('/never').length >= 1);
    await webhooks.publishKeyEvent(fastUser);
    await waitFor('the other user’s delivery', () => receiver.at('/fast').length === 1);
    // While the slow endpoint still has not answered, and with at most 2 of its attempts in flight.
    expect(receiver.at('/never').length).toBeLessThanOrEqual(2);
    expect(() => verify(fast.secret, receiver.at('/fast')[0]!)).not.toThrow();
    answer(200);
  });

  it('is retried, then given up with its endpoint disabled and saying why; a replay after re-enabling delivers it with the same id', async () => {
    const userId = newUserId();
    let status = 500;
    const { id, secret } = await webhooks.register(
      userId,
      receiver.on('/failing', () => status),
    );
    await webhooks.publishKeyEvent(userId);
    const endpoint = await waitFor(
      'the endpoint disabled',
      async () => {
        const body = (await (await webhooks.call('GET', `/api/Webhooks/${id}`, userId)).json()) as {
          enabled: boolean;
          disabledReason: string | null;
        };
        return body.enabled ? null : body;
      },
      15_000,
    );
    expect(endpoint.disabledReason).toMatch(/kept failing .*HTTP 500/);
    const [failed] = await webhooks.deliveries(userId, id);
    expect(failed).toMatchObject({ status: 'failed', lastStatus: 500, lastError: 'http_status' });
    expect(failed!.attempts).toBeGreaterThanOrEqual(2);
    expect(receiver.at('/failing')).toHaveLength(failed!.attempts);
    const { rows } = await webhooks.service.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM delivery_attempts WHERE delivery_id = $1',
      [failed!.id],
    );
    expect(rows[0]!.n).toBe(failed!.attempts);

    const replayPath = `/api/Webhooks/${id}/Deliveries/${failed!.id}/Replay`;
    expect((await webhooks.call('POST', replayPath, userId)).status).toBe(409); // disabled: enable first
    status = 200;
    expect((await webhooks.call('PATCH', `/api/Webhooks/${id}`, userId, { enabled: true })).status).toBe(200);
    const replayed = await webhooks.call('POST', replayPath, userId);
    expect(replayed.status).toBe(202);
    await waitFor('the replay delivered', async () => (await webhooks.deliveries(userId, id))[0]?.status === 'delivered');
    const last = receiver.at('/failing').at(-1)!;
    expect(last.headers['webhook-id']).toBe(failed!.id);
    expect(() => verify(secret, last)).not.toThrow();
    expect((await webhooks.call('POST', replayPath, newUserId())).status).toBe(404);
  }, 30_000);

  it('after a secret rotation carries two signatures, each verifying, and only the new secret is shown', async () => {
    const userId = newUserId();
    const { id, secret: old } = await webhooks.register(
      userId,
      receiver.on('/rotated', () => 200),
    );
    const rotated = await webhooks.call('POST', `/api/Webhooks/${id}/RotateSecret`, userId);
    expect(rotated.status).toBe(200);
    const { secret, previousSecretEndsAt } = (await rotated.json()) as { secret: string; previousSecretEndsAt: string };
    expect(secret).not.toBe(old);
    expect(Date.parse(previousSecretEndsAt) - Date.now()).toBeGreaterThan(23 * 3600_000);
    await webhooks.publishKeyEvent(userId);
    const [request] = await waitFor('the delivery', () => (receiver.at('/rotated').length ? receiver.at('/rotated') : null));
    expect(request!.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(() => verify(secret, request!)).not.toThrow();
    expect(() => verify(old, request!)).not.toThrow();
    const shown = await (await webhooks.call('GET', `/api/Webhooks/${id}`, userId)).text();
    expect(shown).not.toContain(secret.slice(6, 20));
  });
});

describe('a WEBHOOKS_SECRET_KEY rotation', () => {
  it('signs with a secret sealed under the previous key while the service has both, and after the reseal', async () => {
    const [oldKey, newKey] = ['the-key-before-the-rotation-0123456789abcdef', 'the-key-after-the-rotation-0123456789abcdef'];
    const rotating = await world.service({ WEBHOOKS_SECRET_KEY: newKey, WEBHOOKS_SECRET_KEY_PREVIOUS: oldKey });
    const userId = newUserId();
    const { id, secret } = await rotating.register(
      userId,
      receiver.on('/key-rotation', () => 200),
    );
    const db = await openDatabase({ url: rotating.databaseUrl, logger: silentLogger() });
    try {
      // As a row written before the rotation holds it: sealed under the old key.
      await db.query('UPDATE endpoints SET secret_box = $2 WHERE id = $1', [id, secretBox(oldKey).seal(secret)]);
      await rotating.publishKeyEvent(userId);
      const [first] = await waitFor('the delivery', () => (receiver.at('/key-rotation').length ? receiver.at('/key-rotation') : null));
      expect(() => verify(secret, first!)).not.toThrow();

      expect(await resealSecrets(db, { current: newKey, previous: [oldKey] })).toMatchObject({ resealed: 1, unreadable: [] });
      const { rows } = await db.query<{ secret_box: string }>('SELECT secret_box FROM endpoints WHERE id = $1', [id]);
      expect(secretBox(newKey).open(rows[0]!.secret_box)).toBe(secret);
      await rotating.publishKeyEvent(userId);
      await waitFor('the second delivery', () => receiver.at('/key-rotation').length >= 2);
      expect(() => verify(secret, receiver.at('/key-rotation')[1]!)).not.toThrow();
    } finally {
      await db.close();
    }
  });
});

describe('an answer', () => {
  it('that redirects is a failed attempt, never followed', async () => {
    const userId = newUserId();
    const { id } = await webhooks.register(
      userId,
      receiver.on('/moved', () => 307),
    );
    await webhooks.publishKeyEvent(userId);
    const [delivery] = await waitFor('the attempt', async () => {
      const items = await webhooks.deliveries(userId, id);
      return items[0]?.lastStatus ? items : null;
    });
    expect(delivery).toMatchObject({ lastStatus: 307, lastError: 'redirect' });
    expect(delivery!.status).not.toBe('delivered');
  });

  it('longer than the cap is cut off: a failed one says response_too_large, a 2xx still counts as delivered', async () => {
    const big = 'x'.repeat(512 * 1024); // the cap is 64 KiB
    const userId = newUserId();
    const failing = await webhooks.register(
      userId,
      receiver.on('/big-500', () => ({ status: 500, body: big })),
    );
    const fine = await webhooks.register(
      userId,
      receiver.on('/big-200', () => ({ status: 200, body: big })),
    );
    await webhooks.publishKeyEvent(userId);
    const [failed] = await waitFor('the failed attempt', async () => {
      const items = await webhooks.deliveries(userId, failing.id);
      return items[0]?.lastStatus ? items : null;
    });
    expect(failed).toMatchObject({ lastStatus: 500, lastError: 'response_too_large' });
    await waitFor('the 2xx delivered', async () => (await webhooks.deliveries(userId, fine.id))[0]?.status === 'delivered');
  });
});

describe('the address policy at connection time', () => {
  it('refuses a host that resolved to a public address at registration and to 127.0.0.1 when dialled (DNS rebinding)', async () => {
    let answer = '93.184.216.34';
    const strict = await world.service(
      { WEBHOOKS_ALLOW_PRIVATE_URLS: 'false', WEBHOOKS_RETRY_SCHEDULE: '5m' },
      { resolve: async (host) => (host === 'rebind.test' ? [answer] : []) },
    );
    const port = new URL(receiver.url).port;
    const userId = newUserId();
    const { id } = await strict.register(userId, `https://rebind.test:${port}/rebound`);
    answer = '127.0.0.1';
    await strict.publishKeyEvent(userId);
    const [delivery] = await waitFor('the refused attempt', async () => {
      const items = await strict.deliveries(userId, id);
      return items[0]?.lastError ? items : null;
    });
    expect(delivery).toMatchObject({ status: 'pending', lastStatus: null, lastError: 'blocked_address' });
    expect(receiver.at('/rebound')).toHaveLength(0);
    // And at registration, the same name now resolving to loopback is refused naming the field.
    const refused = await strict.call('POST', '/api/Webhooks', userId, {
      url: `https://rebind.test:${port}/x`,
      events: ['api_key.created'],
    });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ code: 'webhook_url_not_allowed', details: [{ path: 'body.url' }] });
  }, 30_000);
});
