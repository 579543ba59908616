import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import { listenOnLoopback, testServerUrl, uniqueName } from '@acs/testing';
import { MgetConnection } from '../src/mget-connection.js';
import { RespProtocolError } from '../src/resp-reader.js';

const REDIS_URL = testServerUrl('REDIS_URL');
const TIMEOUTS = { connectTimeoutMs: 1_000, commandTimeoutMs: 1_000, maxReconnectDelayMs: 200 };

function urlWith(change: (url: URL) => void): string {
  const url = new URL(REDIS_URL);
  change(url);
  return url.toString();
}

describe('dedicated MGET connection (real Redis)', () => {
  const prefix = `${uniqueName('acs_mget')}:`;
  let raw: Redis;

  beforeAll(async () => {
    raw = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    await raw.mset(`${prefix}plain`, 'p', `${prefix}tricky`, 'line\r\nbreak | süß', `${prefix}big`, 'b'.repeat(200_000));
  });

  afterAll(async () => {
    const keys = await raw.keys(`${prefix}*`);
    if (keys.length > 0) await raw.del(...keys);
    await raw.quit();
  });

  it('answers each of many concurrent calls with its own keys, prefix applied', async () => {
    // About 33 MB of replies (a third of the calls read a 200 KB value): on a busy machine reading them
    // can take longer than the 1 s the other tests allow, and this test is about answers, not time.
    const reads = new MgetConnection({ url: REDIS_URL, keyPrefix: prefix, ...TIMEOUTS, commandTimeoutMs: 15_000 });
    try {
      const asked = Array.from({ length: 500 }, (_, i) =>
        i % 3 === 0 ? ['plain', `missing-${i}`] : i % 3 === 1 ? ['tricky'] : ['big', 'plain', 'tricky'],
      );
      const expected = asked.map((keys) =>
        keys.map((key) => (key === 'plain' ? 'p' : key === 'tricky' ? 'line\r\nbreak | süß' : key === 'big' ? 'b'.repeat(200_000) : null)),
      );
      expect(await Promise.all(asked.map((keys) => reads.mget(keys)))).toEqual(expected);
      // Without the prefix, the same names are other keys.
      const unprefixed = new MgetConnection({ url: REDIS_URL, ...TIMEOUTS });
      expect(await unprefixed.mget(['plain'])).toEqual([null]);
      await unprefixed.close();
    } finally {
      await reads.close();
    }
  });

  it('sees a write acknowledged on another connection on its very next read', async () => {
    const reads = new MgetConnection({ url: REDIS_URL, keyPrefix: prefix, ...TIMEOUTS });
    try {
      for (let i = 0; i < 50; i++) {
        await raw.set(`${prefix}fresh`, `v${i}`);
        expect(await reads.mget(['fresh'])).toEqual([`v${i}`]);
      }
    } finally {
      await reads.close();
    }
  });

  it('settles a batch with what its shape reads from the replies, and rejects with what the shape throws', async () => {
    const reads = new MgetConnection({ url: REDIS_URL, keyPrefix: prefix, ...TIMEOUTS });
    try {
      const payload = reads.mgetCommand(['plain', 'nothing-here']) + reads.keyCommand('INCR', ['shaped-counter']);
      const shaped = await reads.batch(payload, 2, (replies) => ({ values: replies[0], count: replies[1] }));
      expect(shaped).toEqual({ values: ['p', null], count: 1 });
      // Without a shape the replies come as they are.
      expect(await reads.batch(reads.mgetCommand(['plain']), 1)).toEqual([['p']]);
      const broken = reads.batch(reads.mgetCommand(['plain']), 1, () => {
        throw new Error('shape failed');
      });
      await expect(broken).rejects.toThrow('shape failed');
      // The connection goes on serving after a shape threw.
      expect(await reads.mget(['plain'])).toEqual(['p']);
    } finally {
      await reads.close();
    }
  });

  it('selects the database named in the URL', async () => {
    const db5 = new Redis(
      urlWith((url) => (url.pathname = '/5')),
      { maxRetriesPerRequest: 1 },
    );
    const reads5 = new MgetConnection({ url: urlWith((url) => (url.pathname = '/5')), keyPrefix: prefix, ...TIMEOUTS });
    const reads0 = new MgetConnection({ url: REDIS_URL, keyPrefix: prefix, ...TIMEOUTS });
    try {
      await db5.set(`${prefix}in-db5`, 'five');
      expect(await reads5.mget(['in-db5'])).toEqual(['five']);
      expect(await reads0.mget(['in-db5'])).toEqual([null]);
    } finally {
      await db5.del(`${prefix}in-db5`);
      await Promise.all([db5.quit(), reads5.close(), reads0.close()]);
    }
  });

  it('authenticates with the user and password in the URL, and fails closed with wrong ones', async () => {
    const user = uniqueName('acs_mget_user');
    const password = `pw-${uniqueName('secret')}`;
    await raw.call('ACL', 'SETUSER', user, 'on', `>${password}`, `~${prefix}*`, '+mget');
    const good = new MgetConnection({
      url: urlWith((url) => {
        url.username = user;
        url.password = password;
      }),
      keyPrefix: prefix,
      ...TIMEOUTS,
    });
    const bad = new MgetConnection({
      url: urlWith((url) => {
        url.username = user;
        url.password = 'wrong-password';
      }),
      keyPrefix: prefix,
      ...TIMEOUTS,
    });
    try {
      expect(await good.mget(['plain'])).toEqual(['p']);
      await expect(bad.mget(['plain'])).rejects.toThrow(/WRONGPASS/);
      // Failing closed: while down, calls reject at once instead of queueing.
      await expect(bad.mget(['plain'])).rejects.toThrow(/WRONGPASS/);
    } finally {
      await Promise.all([good.close(), bad.close()]);
      await raw.call('ACL', 'DELUSER', user);
    }
  });

  it('close lets replies already asked for arrive, then later calls reject', async () => {
    const reads = new MgetConnection({ url: REDIS_URL, keyPrefix: prefix, ...TIMEOUTS });
    const inFlight = reads.mget(['plain']);
    await reads.close();
    expect(await inFlight).toEqual(['p']);
    await expect(reads.mget(['plain'])).rejects.toThrow(/closed/);
    await reads.close(); // idempotent
  });
});

describe('dedicated MGET connection against servers that misbehave', () => {
  const sockets = new Set<Socket>();
  afterAll(() => {
    for (const socket of sockets) socket.destroy();
  });

  it('drops a connection that sends bytes that are not RESP, and connects afresh', async () => {
    let connections = 0;
    const server = createServer((socket) => {
      sockets.add(socket);
      connections++;
      // The first connection answers garbage; later ones answer like Redis.
      const garbage = connections === 1;
      socket.on('data', () => socket.write(garbage ? 'HTTP/1.1 400 Bad Request\r\n\r\n' : '*1\r\n$2\r\nok\r\n'));
    });
    const port = await listenOnLoopback(server);
    const reads = new MgetConnection({ url: `redis://127.0.0.1:${port}`, ...TIMEOUTS });
    try {
      await expect(reads.mget(['k'])).rejects.toBeInstanceOf(RespProtocolError);
      const deadline = Date.now() + 3_000;
      let answer: unknown = null;
      while (answer === null && Date.now() < deadline) {
        answer = await reads.mget(['k']).catch(() => null);
        if (answer === null) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(answer).toEqual(['ok']);
      expect(connections).toBe(2);
    } finally {
      await reads.close();
      server.close();
    }
  });

  it('holds calls made while a write awaits its replies, then sends them in one write', async () => {
    const writes: number[] = [];
    let answerNow: (() => void) | null = null;
    const server = createServer((socket) => {
      sockets.add(socket);
      socket.on('data', (chunk: Buffer) => {
        const commands = chunk.toString('latin1').split('MGET').length - 1;
        writes.push(commands);
        // Each write is answered only when the test says so, one reply per command.
        answerNow = () => socket.write('*1\r\n$1\r\nv\r\n'.repeat(commands));
      });
    });
    const port = await listenOnLoopback(server);
    const reads = new MgetConnection({ url: `redis://127.0.0.1:${port}`, ...TIMEOUTS });
    const waitFor = async (condition: () => boolean) => {
      for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
    };
    try {
      const first = reads.mget(['a']);
      first.catch(() => {});
      await waitFor(() => writes.length === 1);
      const later: Promise<unknown>[] = [];
      for (let i = 0; i < 5; i++) {
        const call = reads.mget([`k${i}`]);
        call.catch(() => {}); // if the assertions below fail first, the rejection is not unhandled
        later.push(call);
        await new Promise((resolve) => setImmediate(resolve)); // each call in a turn of its own
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(writes).toEqual([1]); // nothing more went out while the first write was unanswered
      answerNow!();
      expect(await first).toEqual(['v']);
      await waitFor(() => writes.length === 2);
      expect(writes).toEqual([1, 5]);
      answerNow!();
      expect(await Promise.all(later)).toEqual(Array.from({ length: 5 }, () => ['v']));
    } finally {
      await reads.close();
      server.close();
    }
  });

  it('rejects within the command timeout when the server never answers', async () => {
    const server = createServer((socket) => sockets.add(socket));
    const port = await listenOnLoopback(server);
    const reads = new MgetConnection({ url: `redis://127.0.0.1:${port}`, ...TIMEOUTS, commandTimeoutMs: 300 });
    try {
      const started = Date.now();
      await expect(Promise.all([reads.mget(['a']), reads.mget(['b'])])).rejects.toThrow(/did not answer within 300 ms/);
      expect(Date.now() - started).toBeLessThan(1_500);
    } finally {
      await reads.close();
      server.close();
    }
  });

  it('refuses a URL that is not a Redis URL', () => {
    expect(() => new MgetConnection({ url: 'http://127.0.0.1:6379', ...TIMEOUTS })).toThrow(/unsupported Redis URL scheme/);
    expect(() => new MgetConnection({ url: 'redis://127.0.0.1:6379/not-a-number', ...TIMEOUTS })).toThrow(/database must be a number/);
  });
});
