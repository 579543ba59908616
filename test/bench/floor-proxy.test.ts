import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { hashSecret, verifyContext } from '@acs/auth';
import { apiKeyCacheKey } from '@acs/contracts';
import { deleteRedisKeys, startFakeUpstream, testServerUrl, uniqueName, type FakeUpstream } from '@acs/testing';
import { startProcess, type ServiceProcess } from '../../bench/src/processes.js';

// The bench's floor proxy (npm run bench -- --floor) is a yardstick: the gateway is measured against it, so it
// must really do the work it stands for (read the record in Redis, check the secret, count, sign), or its
// figure would flatter the floor. Against real Redis and a service that verifies the signed context.
const INTERNAL_SECRET = 'floor-test-internal-secret-0123456789ab';
const KEY = 'acs_live_FloorTestKey0000000000000001';
const SECRET = 'floor-test-secret-that-is-long-enough-00000';
const prefix = `${uniqueName('floor')}:`;
let redis: Redis;
let upstream: FakeUpstream;
let floor: ServiceProcess;
/** The floors of the parts' tests, each on its own record key (so its own counter). */
const partFloors: ServiceProcess[] = [];
const partPrefixes: string[] = [];
const counterOf = (keyPrefix: string) => `floor:counter:{${keyPrefix}${apiKeyCacheKey(KEY)}}`;

/** A floor proxy reading the key's record under `keyPrefix` (written here first), with `env` beside the common settings. */
async function startFloorOn(name: string, keyPrefix: string, env: Record<string, string>): Promise<ServiceProcess> {
  const record = { id: 'key-1', secretHash: hashSecret(SECRET), scopes: ['catalog:read'], ownerUserId: null, revoked: false };
  await redis.set(`${keyPrefix}${apiKeyCacheKey(KEY)}`, `1|${JSON.stringify(record)}`);
  return startProcess(name, 'bench/dist/floor-proxy.js', {
    UPSTREAM_URL: upstream.url,
    REDIS_URL: testServerUrl('REDIS_URL'),
    INTERNAL_SECRET,
    FLOOR_RECORD_KEY: `${keyPrefix}${apiKeyCacheKey(KEY)}`,
    ...env,
  });
}

beforeAll(async () => {
  redis = new Redis(testServerUrl('REDIS_URL'));
  upstream = await startFakeUpstream();
  upstream.handle = (req, res) => {
    const context = verifyContext(
      INTERNAL_SECRET,
      'catalog',
      'GET',
      req.url!,
      req.headers['x-acs-context'] as string,
      req.headers['x-acs-signature'] as string,
    );
    res.writeHead(context ? 200 : 403, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ keyId: context?.keyId ?? null, scopes: context?.scopes ?? null }));
  };
  floor = await startFloorOn('floor proxy', prefix, { FLOOR_LIMIT: '3' });
});

afterAll(async () => {
  await Promise.all([floor, ...partFloors].map((process) => process?.stop()));
  await upstream?.close();
  for (const keyPrefix of [prefix, ...partPrefixes]) {
    await deleteRedisKeys(keyPrefix);
    await redis?.del(counterOf(keyPrefix));
  }
  redis?.disconnect();
});

const call = (secret: string) => fetch(`${floor.url}/api/Dac?page=1`, { headers: { 'x-api-key': KEY, 'x-api-secret': secret } });

describe('the bench floor proxy', () => {
  it('reads the key record, checks the secret, counts against the limit and forwards a context the service verifies', async () => {
    const admitted = await call(SECRET);
    expect(admitted.status).toBe(200);
    expect(await admitted.json()).toEqual({ keyId: 'key-1', scopes: ['catalog:read'] });
    expect(admitted.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(admitted.headers.get('ratelimit')).toBe('"1d";r=2;t=3600');

    expect((await call('not-the-secret-but-just-as-long-as-it-00000')).status).toBe(401);
    expect(upstream.received).toHaveLength(1);

    // The counter lives in Redis and moves with the read, the refused call's included (the floor gives
    // nothing back): the limit of 3 admits one more, then refuses.
    expect((await call(SECRET)).status).toBe(200);
    expect((await call(SECRET)).status).toBe(429);
  });
});

// The floor's parts (FLOOR_PARTS, `--slices "floor:round-trip,plain"`) split the spec's minimum into what a Redis
// round trip costs and what the forward costs. Each must do exactly its part: the round trip must really reach
// Redis on every request (or it would flatter the round trip), and the forward must not reach it at all.
async function startFloorWith(parts: string): Promise<{ partFloor: ServiceProcess; keyPrefix: string }> {
  const keyPrefix = `${uniqueName(`floor-${parts}`)}:`;
  partPrefixes.push(keyPrefix);
  const partFloor = await startFloorOn(`floor proxy (${parts})`, keyPrefix, { FLOOR_PARTS: parts });
  partFloors.push(partFloor);
  return { partFloor, keyPrefix };
}

/** Three calls with the right key: their statuses (the parts send no RateLimit headers). */
async function callThree(partFloor: ServiceProcess): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < 3; i += 1) {
    const answer = await fetch(`${partFloor.url}/api/Dac?page=1`, { headers: { 'x-api-key': KEY, 'x-api-secret': SECRET } });
    statuses.push(answer.status);
    expect(answer.headers.get('ratelimit')).toBeNull();
    expect(await answer.json()).toEqual({ keyId: 'key-1', scopes: ['catalog:read'] });
  }
  return statuses;
}

describe("the bench floor's parts", () => {
  it('round-trip: every request reads and counts in Redis and sends a context the service verifies', async () => {
    const { partFloor, keyPrefix } = await startFloorWith('round-trip');
    expect(await callThree(partFloor)).toEqual([200, 200, 200]);
    expect(await redis.get(counterOf(keyPrefix))).toBe('3');
  });

  it('forward: only the first request reaches Redis; the rest are forwarded on its reply', async () => {
    const { partFloor, keyPrefix } = await startFloorWith('forward');
    expect(await callThree(partFloor)).toEqual([200, 200, 200]);
    expect(await redis.get(counterOf(keyPrefix))).toBe('1');
  });

  it('refuses to start with a part it does not know', async () => {
    await expect(startFloorWith('everything-but')).rejects.toThrow(/FLOOR_PARTS: all, round-trip or forward/);
  });
});
