import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { createRedisClusterCache } from '@acs/cache';
import { createLogger } from '@acs/logger';
import { deleteClusterKeys, startFakeUpstream, testClusterNodes, testServerUrl, uniqueName, type FakeUpstream } from '@acs/testing';
import { changeApiKey } from '@acs/keys-service';
import { startGatewayHarness, type GatewayHarness } from './harness.js';

// Issue 31, item 4: Idempotency-Key on every POST and PATCH, kept by the gateway in Redis. The upstream is a
// stand-in identity service (POST /api/Users/Register needs a key only) that counts what reaches it.
let h: GatewayHarness;
let identity: FakeUpstream;
let redis: Redis;
let key: { id: string; key: string; secret: string };
let answered = 0;
/** Set by a test to hold the upstream's answers until it calls it. */
let hold: Promise<void> | null = null;
let statusToAnswer = 201;

beforeAll(async () => {
  identity = await startFakeUpstream();
  identity.handle = (_req, res) => {
    const respond = (): void => {
      answered += 1;
      res.writeHead(statusToAnswer, { 'content-type': 'application/json', location: `/api/Users/${answered}` });
      res.end(JSON.stringify({ run: answered }));
    };
    if (hold !== null) void hold.then(respond);
    else respond();
  };
  h = await startGatewayHarness({ IDENTITY_URL: identity.url });
  key = await h.createKey(['auth:register']);
  redis = new Redis(testServerUrl('REDIS_URL'));
});
afterAll(async () => {
  redis.disconnect();
  await h.close();
  await identity.close();
});
beforeEach(() => {
  hold = null;
  statusToAnswer = 201;
});

const register = (idempotencyKey: string | null, body: unknown, auth = key) =>
  h.call('POST', '/api/Users/Register', auth, {
    headers: { 'content-type': 'application/json', ...(idempotencyKey === null ? {} : { 'idempotency-key': idempotencyKey }) },
    body: JSON.stringify(body),
  });

const storedEntries = async (keyId: string): Promise<string[]> => redis.keys(`${h.redisPrefix}idempotency:{${keyId}}:*`);

describe('Idempotency-Key through the gateway, on real Redis', () => {
  it('a retry with the same key and body gets the first answer again, marked Idempotent-Replayed, and the service runs once', async () => {
    const before = answered;
    const first = await register('replay-1', { email: 'a@example.com' });
    expect(first.status).toBe(201);
    const firstBody = await first.text();
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const second = await register('replay-1', { email: 'a@example.com' });
    expect(second.status).toBe(201);
    expect(await second.text()).toBe(firstBody);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.headers.get('location')).toBe(first.headers.get('location'));
    expect(second.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect(answered - before).toBe(1);
  });

  it("a replay and a 422 carry the RateLimit headers of their own request, never the first answer's", async () => {
    const limited = await h.createKey(['auth:register']);
    await changeApiKey(h.keys.deps, limited.id, { rateLimits: [{ limit: 10, windowSeconds: 3600 }] });
    const first = await register('limited-1', { email: 'l@example.com' }, limited);
    expect(first.headers.get('ratelimit')).toMatch(/^"1h";r=9;t=\d+$/);
    await first.text();
    const replayed = await register('limited-1', { email: 'l@example.com' }, limited);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.headers.get('ratelimit')).toMatch(/^"1h";r=8;t=\d+$/);
    expect(replayed.headers.get('ratelimit-policy')).toBe('"1h";q=10;w=3600');
    expect(replayed.headers.get('location')).toBe(first.headers.get('location'));
    await replayed.text();
    const reused = await register('limited-1', { email: 'other@example.com' }, limited);
    expect(reused.status).toBe(422);
    expect(reused.headers.get('ratelimit')).toMatch(/^"1h";r=7;t=\d+$/);
    await reused.text();
  });

  it('the same key with another body is 422 idempotency_key_reused, and the service is not called', async () => {
    await (await register('reused-1', { email: 'b@example.com' })).text();
    const before = answered;
    const res = await register('reused-1', { email: 'other@example.com' });
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({ code: 'idempotency_key_reused' });
    expect(answered).toBe(before);
  });

  it('the same key while the first request runs is 409 idempotency_request_in_progress; once it answered, a retry replays it', async () => {
    let release!: () => void;
    hold = new Promise((resolve) => (release = resolve));
    const first = register('running-1', { email: 'c@example.com' });
    // The first request holds its lease once the service has it.
    const arrived = identity.received.length;
    while (identity.received.length === arrived) await new Promise((r) => setTimeout(r, 10));
    const meanwhile = await register('running-1', { email: 'c@example.com' });
    expect(meanwhile.status).toBe(409);
    expect(await meanwhile.json()).toMatchObject({ code: 'idempotency_request_in_progress' });
    release();
    const firstAnswer = await first;
    const firstBody = await firstAnswer.text();
    hold = null;
    const later = await register('running-1', { email: 'c@example.com' });
    expect(later.headers.get('idempotent-replayed')).toBe('true');
    expect(await later.text()).toBe(firstBody);
  });

  it("is scoped to the API key: another key's same Idempotency-Key runs on its own", async () => {
    const other = await h.createKey(['auth:register']);
    const before = answered;
    await (await register('shared-1', { email: 'd@example.com' })).text();
    const res = await register('shared-1', { email: 'd@example.com' }, other);
    expect(res.headers.get('idempotent-replayed')).toBeNull();
    await res.text();
    expect(answered - before).toBe(2);
  });

  it('a 5xx answer is not kept: the retry runs again', async () => {
    statusToAnswer = 503;
    const before = answered;
    expect((await register('failed-1', { email: 'e@example.com' })).status).toBe(503);
    statusToAnswer = 201;
    const retry = await register('failed-1', { email: 'e@example.com' });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(answered - before).toBe(2);
  });

  it('the kept answer expires after 24 h (its TTL), in a slot-safe entry named by the key id', async () => {
    const fresh = await h.createKey(['auth:register']);
    await (await register('ttl-1', { email: 'f@example.com' }, fresh)).text();
    const [entry, ...more] = await storedEntries(fresh.id);
    expect(more).toEqual([]);
    const ttl = await redis.ttl(entry!);
    expect(ttl).toBeGreaterThan(24 * 3600 - 60);
    expect(ttl).toBeLessThanOrEqual(24 * 3600);
  });

  it('requests without the header store nothing; an invalid header is 400 before the service is called', async () => {
    const fresh = await h.createKey(['auth:register']);
    await (await register(null, { email: 'g@example.com' }, fresh)).text();
    expect(await storedEntries(fresh.id)).toEqual([]);
    const before = answered;
    const res = await register('bad key with spaces', { email: 'g@example.com' }, fresh);
    expect(res.status).toBe(400);
    // The same answer billing gives for it (issue 9).
    expect(await res.json()).toMatchObject({ code: 'validation_failed', details: [{ path: 'header.Idempotency-Key' }] });
    expect(answered).toBe(before);
  });

  it('on Redis Cluster too: the records are slot-safe (one key per script, hash tag on the key id)', async () => {
    const prefix = `${uniqueName('gwidem')}:`;
    const cluster = createRedisClusterCache({
      nodes: testClusterNodes(),
      keyPrefix: prefix,
      logger: createLogger({ name: 't', level: 'silent' }),
    });
    try {
      // This replica's records live on the cluster (the key itself is looked up from the keys service on a miss).
      const onCluster = await h.startAnotherGateway({ cache: cluster });
      const call = () =>
        fetch(`${onCluster.server.url}/api/Users/Register`, {
          method: 'POST',
          headers: { 'x-api-key': key.key, 'x-api-secret': key.secret, 'content-type': 'application/json', 'idempotency-key': 'cluster-1' },
          body: JSON.stringify({ email: 'h@example.com' }),
        });
      const before = answered;
      const first = await call();
      const firstBody = await first.text();
      const again = await call();
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(await again.text()).toBe(firstBody);
      expect(answered - before).toBe(1);
    } finally {
      await cluster.close();
      await deleteClusterKeys(prefix);
    }
  });
});
