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

describe('requestReads on one node (issue 25: the MGET and the counters in one write, no script)', () => {
  it('joins every group in one MGET, INCRs each counter, answers by group, and gives back and expires without waiting', async () => {
    const reads = cache.requestReads!;
    await cache.set('rec:{k}', '3|record');
    await cache.set('count:{k}:old', '4');
    const groups = [
      { reads: ['rec:{k}', 'count:{k}:old'], increments: ['count:{k}:now', 'count:{k}:day'] },
      { reads: ['user:{u}'], increments: ['quota:{u}:m'] },
    ];
    const replies = await Promise.all(Array.from({ length: 20 }, () => reads.exchange(groups)));
    expect(replies[0]![0]!.values).toEqual(['3|record', '4']);
    expect(replies.map((reply) => reply[0]!.counts[0]!).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(replies[19]).toEqual([
      { values: ['3|record', '4'], counts: [20, 20] },
      { values: [null], counts: [20] },
    ]);
    reads.decrement(['count:{k}:now', 'quota:{u}:m']);
    reads.expireAt('count:{k}:now', Date.now() + 60_000);
    // Sent before the next exchange on the same connection, so that one sees them.
    expect(await reads.exchange([{ reads: ['count:{k}:now', 'quota:{u}:m'], increments: [] }])).toEqual([
      { values: ['19', '19'], counts: [] },
    ]);
    expect(await reads.exchange([{ reads: [], increments: [] }])).toEqual([{ values: [], counts: [] }]);
  });

  it('rejects with the first error reply of a batch (an INCR of a value that is not a number), and the connection goes on', async () => {
    const reads = cache.requestReads!;
    await cache.set('not-a-number:{k}', 'x');
    await expect(reads.exchange([{ reads: ['rec:{k}'], increments: ['not-a-number:{k}', 'count:{k}:other'] }])).rejects.toBeInstanceOf(
      RespError,
    );
    expect(await reads.exchange([{ reads: ['count:{k}:other'], increments: [] }])).toEqual([{ values: ['1'], counts: [] }]);
  });
});
