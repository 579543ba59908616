import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { createRedisCache, scriptOf, RespError, type Cache } from '@acs/cache';
import { deleteRedisKeys, testServerUrl, uniqueName } from '@acs/testing';

// Cache.evalScript: a script on the gateway's read connection (issue 16), with EVAL when Redis does not know its SHA yet.
const prefix = `${uniqueName('evalscript')}:`;
let cache: Cache;

beforeAll(() => {
  cache = createRedisCache({ url: testServerUrl('REDIS_URL'), keyPrefix: prefix });
});
afterAll(async () => {
  await cache.close();
  await deleteRedisKeys(prefix);
});

describe('evalScript', () => {
  it('runs a script Redis has never seen (NOSCRIPT, then EVAL), then by its SHA, with prefixed KEYS and its arguments', async () => {
    // A source no one ran before, so its SHA is unknown to Redis.
    const script = scriptOf(
      `-- ${randomBytes(8).toString('hex')}\nredis.call('INCRBY', KEYS[1], ARGV[1])\nreturn { KEYS[1], redis.call('GET', KEYS[1]), tonumber(ARGV[2]), false }`,
    );
    expect(await cache.evalScript!(script, ['counter'], ['5', '7'])).toEqual([`${prefix}counter`, '5', 7, null]);
    expect(await cache.evalScript!(script, ['counter'], ['2', '1'])).toEqual([`${prefix}counter`, '7', 1, null]);
  });

  it('shares the write with concurrent MGETs and keeps every reply in order', async () => {
    const script = scriptOf('return { ARGV[1] }');
    await cache.set('a', 'A');
    const calls = Array.from({ length: 50 }, (_, i) => (i % 2 ? cache.mget(['a']) : cache.evalScript!(script, [], [String(i)])));
    const replies = await Promise.all(calls);
    for (const [i, reply] of replies.entries()) expect(reply).toEqual(i % 2 ? ['A'] : [String(i)]);
  });

  it("rejects with the script's error, and the connection goes on", async () => {
    await expect(cache.evalScript!(scriptOf("return redis.error_reply('ERR nope')"), [], [])).rejects.toBeInstanceOf(RespError);
    expect(await cache.mget(['a'])).toEqual(['A']);
  });
});
