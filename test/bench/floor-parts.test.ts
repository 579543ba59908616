import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { hashSecret, verifyContext } from '@acs/auth';
import { apiKeyCacheKey } from '@acs/contracts';
import { deleteRedisKeys, startFakeUpstream, testServerUrl, uniqueName, type FakeUpstream } from '@acs/testing';
import { startProcess, type ServiceProcess } from '../../bench/src/processes.js';

// The floor's parts (FLOOR_PARTS, `--slices "floor:round-trip,plain"`) split the spec's minimum into what a Redis
// round trip costs and what the forward costs. Each must do exactly its part: the round trip must really reach
// Redis on every request (or it would flatter the round trip), and the forward must not reach it at all.
const INTERNAL_SECRET = 'floor-parts-internal-secret-0123456789ab';
const KEY = 'acs_live_FloorPartsKey000000000000001';
const SECRET = 'floor-parts-secret-that-is-long-enough-000';
let redis: Redis;
let upstream: FakeUpstream;
const floors: ServiceProcess[] = [];
const prefixes: string[] = [];

const counterOf = (prefix: string) => `floor:counter:{${prefix}${apiKeyCacheKey(KEY)}}`;

async function startFloorWith(parts: string): Promise<{ floor: ServiceProcess; prefix: string }> {
  const prefix = `${uniqueName(`floor-${parts}`)}:`;
  prefixes.push(prefix);
  const record = { id: 'key-1', secretHash: hashSecret(SECRET), scopes: ['catalog:read'], ownerUserId: null, revoked: false };
  await redis.set(`${prefix}${apiKeyCacheKey(KEY)}`, `1|${JSON.stringify(record)}`);
  const floor = await startProcess(`floor proxy (${parts})`, 'bench/dist/floor-proxy.js', {
    UPSTREAM_URL: upstream.url,
    REDIS_URL: testServerUrl('REDIS_URL'),
    INTERNAL_SECRET,
    FLOOR_RECORD_KEY: `${prefix}${apiKeyCacheKey(KEY)}`,
    FLOOR_PARTS: parts,
  });
  floors.push(floor);
  return { floor, prefix };
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
    res.end('{}');
  };
});

afterAll(async () => {
  await Promise.all(floors.map((floor) => floor.stop()));
  await upstream?.close();
  for (const prefix of prefixes) {
    await deleteRedisKeys(prefix);
    await redis?.del(counterOf(prefix));
  }
  redis?.disconnect();
});

const callThree = async (floor: ServiceProcess) => {
  const statuses: number[] = [];
  for (let i = 0; i < 3; i += 1) {
    const answer = await fetch(`${floor.url}/api/Dac?page=1`, { headers: { 'x-api-key': KEY, 'x-api-secret': SECRET } });
    statuses.push(answer.status);
    expect(answer.headers.get('ratelimit')).toBeNull();
    await answer.arrayBuffer();
  }
  return statuses;
};

describe("the bench floor's parts", () => {
  it('round-trip: every request reads and counts in Redis and sends a context the service verifies', async () => {
    const { floor, prefix } = await startFloorWith('round-trip');
    expect(await callThree(floor)).toEqual([200, 200, 200]);
    expect(await redis.get(counterOf(prefix))).toBe('3');
  });

  it('forward: only the first request reaches Redis; the rest are forwarded on its reply', async () => {
    const { floor, prefix } = await startFloorWith('forward');
    expect(await callThree(floor)).toEqual([200, 200, 200]);
    expect(await redis.get(counterOf(prefix))).toBe('1');
  });

  it('refuses to start with a part it does not know', async () => {
    await expect(startFloorWith('everything-but')).rejects.toThrow(/FLOOR_PARTS: all, round-trip or forward/);
  });
});
