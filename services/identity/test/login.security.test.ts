import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import bcrypt from 'bcrypt';
import { createRedisCache, type Cache } from '@acs/cache';
import { pairFailuresKey } from '../src/domain/login-throttle.js';
import { deleteRedisKeys, metricValue, startFaultProxy, uniqueName, type FaultProxy } from '@acs/testing';
import {
  REDIS_URL,
  captureLogger,
  countPasswordChecks,
  registered,
  silentLogger,
  startIdentity,
  strongPassword,
  uniqueEmail,
  type IdentityHarness,
} from './harness.js';

let identity: IdentityHarness;
const captured = captureLogger();

beforeAll(async () => {
  identity = await startIdentity({
    logger: captured.logger,
    env: {
      LOGIN_MAX_FAILURES_PER_ACCOUNT_ADDRESS: '3',
      LOGIN_MAX_FAILURES_PER_ACCOUNT: '5',
      LOGIN_MAX_FAILURES_PER_ADDRESS: '8',
      LOGIN_FAILURE_WINDOW_SECONDS: '900',
    },
  });
});

afterAll(async () => {
  await identity?.stop();
});

let ip = 0;
const nextIp = (): string => {
  ip += 1;
  return `203.0.113.${ip}`;
};

async function fail(email: string, clientIp: string): Promise<Response> {
  return identity.login({ email, password: strongPassword() }, { clientIp });
}

async function expectThrottled(response: Response): Promise<number> {
  expect(response.status).toBe(429);
  const retryAfter = Number(response.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(900);
  const body = (await response.json()) as { error: string; message: string };
  expect(body).toMatchObject({
    error: 'Too many requests',
    message: `Too many failed sign-in attempts. Try again in ${retryAfter} seconds.`,
  });
  return retryAfter;
}

describe('throttling per (account, address)', () => {
  it('answers 429 with Retry-After after 3 failures from one address, even with the right password, without running bcrypt; the owner elsewhere signs in', async () => {
    const { body: account } = await registered(identity);
    const attacker = nextIp();
    for (let i = 0; i < 3; i++) expect((await fail(account.email, attacker)).status).toBe(401);
    let response: Response | undefined;
    const checks = await countPasswordChecks(identity, async () => {
      response = await identity.login({ email: account.email, password: account.password }, { clientIp: attacker });
    });
    await expectThrottled(response!);
    expect(checks).toBe(0);
    expect((await identity.login({ email: account.email, password: account.password }, { clientIp: nextIp() })).status).toBe(200);
  });

  it('counts the e-mail in any case as one account', async () => {
    const { body: account } = await registered(identity);
    const clientIp = nextIp();
    for (const email of [account.email, account.email.toUpperCase(), account.email.toLowerCase()])
      expect((await fail(email, clientIp)).status).toBe(401);
    await expectThrottled(await fail(account.email.toLowerCase(), clientIp));
  });

  it('counts first: 40 parallel wrong passwords at one pair get exactly 3 x 401 and 37 x 429, and bcrypt runs 3 times', async () => {
    const { body: account } = await registered(identity);
    const clientIp = nextIp();
    let statuses: number[] = [];
    const checks = await countPasswordChecks(identity, async () => {
      statuses = await Promise.all(Array.from({ length: 40 }, async () => (await fail(account.email, clientIp)).status));
    });
    expect(statuses.filter((status) => status === 401)).toHaveLength(3);
    expect(statuses.filter((status) => status === 429)).toHaveLength(37);
    expect(checks).toBe(3);
  });

  it('a successful sign-in clears the pair: the owner who mistyped gets the full allowance again', async () => {
    const { body: account } = await registered(identity);
    const clientIp = nextIp();
    for (let i = 0; i < 2; i++) expect((await fail(account.email, clientIp)).status).toBe(401);
    expect((await identity.login({ email: account.email, password: account.password }, { clientIp })).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await fail(account.email, clientIp)).status).toBe(401);
    expect((await identity.login({ email: account.email, password: account.password }, { clientIp })).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await fail(account.email, clientIp)).status).toBe(401);
    await expectThrottled(await fail(account.email, clientIp));
  });

  it('keeps no raw e-mail in Redis: the account key is a SHA-256 of the lower-cased address', async () => {
    const email = uniqueEmail('Hashed');
    await fail(email, nextIp());
    const keys = await identity.redis.keys(`${identity.prefix}login-*`);
    expect(keys.join('\n')).not.toMatch(/@/);
    const { createHash } = await import('node:crypto');
    expect(keys).toContain(`${identity.prefix}login-fail:acct:{${createHash('sha256').update(email.toLowerCase()).digest('hex')}}`);
  });
});

describe('throttling per account across addresses (a distributed guess)', () => {
  it('past 5 failures the account refuses addresses it does not know; one it signed in from still signs in', async () => {
    const { body: account } = await registered(identity);
    const home = nextIp();
    expect((await identity.login({ email: account.email, password: account.password }, { clientIp: home })).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await fail(account.email, nextIp())).status).toBe(401);
    let response: Response | undefined;
    const checks = await countPasswordChecks(identity, async () => {
      response = await identity.login({ email: account.email, password: account.password }, { clientIp: nextIp() });
    });
    await expectThrottled(response!);
    expect(checks).toBe(0);
    expect((await identity.login({ email: account.email, password: account.password }, { clientIp: home })).status).toBe(200);
    // A wrong password from home is still an honest 401 (and the owner keeps signing in there).
    expect((await fail(account.email, home)).status).toBe(401);
  });

  it('an address from which the account has never signed in is not known: a new e-mail is refused everywhere past the limit', async () => {
    const email = uniqueEmail('ghost');
    for (let i = 0; i < 5; i++) expect((await fail(email, nextIp())).status).toBe(401);
    await expectThrottled(await fail(email, nextIp()));
  });

  it('keeps at most 10 known addresses per account, with an expiry', async () => {
    const { body: account } = await registered(identity);
    for (let i = 0; i < 12; i++)
      expect((await identity.login({ email: account.email, password: account.password }, { clientIp: nextIp() })).status).toBe(200);
    const { createHash } = await import('node:crypto');
    const key = `${identity.prefix}login-known:{${createHash('sha256').update(account.email.toLowerCase()).digest('hex')}}`;
    const known = JSON.parse((await identity.redis.get(key))!) as [string, number][];
    expect(known).toHaveLength(10);
    expect(known.join()).not.toContain('203.0.113'); // hashed, not the address itself
    const ttl = await identity.redis.ttl(key);
    expect(ttl).toBeGreaterThan(29 * 24 * 3600);
    expect(ttl).toBeLessThanOrEqual(30 * 24 * 3600);
  });
});

describe('equal answers', () => {
  it('a throttled unknown e-mail and a throttled real account get the same status, headers and body, and neither runs bcrypt or reads the database', async () => {
    const { body: account } = await registered(identity);
    const ghost = uniqueEmail('ghost');
    const clientIp = nextIp();
    for (let i = 0; i < 3; i++) {
      expect((await fail(account.email, clientIp)).status).toBe(401);
      expect((await fail(ghost, clientIp)).status).toBe(401);
    }
    const answers: { status: number; retryAfter: string | null; body: string }[] = [];
    let queries = 0;
    const db = identity.deps.db;
    identity.deps.db = {
      ...db,
      query: (...args: Parameters<typeof db.query>) => {
        queries += 1;
        return db.query(...args);
      },
    } as typeof db;
    try {
      const checks = await countPasswordChecks(identity, async () => {
        for (const email of [account.email, ghost]) {
          const response = await identity.login({ email, password: account.password }, { clientIp });
          answers.push({ status: response.status, retryAfter: response.headers.get('retry-after'), body: await response.text() });
        }
      });
      expect(checks).toBe(0);
    } finally {
      identity.deps.db = db;
    }
    expect(queries).toBe(0);
    // The same answer but for the seconds left (the two windows started a few ms apart) and the request id.
    const comparable = ({ status, retryAfter, body }: (typeof answers)[number]) => {
      const { requestId: _requestId, ...rest } = JSON.parse(body) as Record<string, unknown>;
      return { status, seconds: Number(retryAfter), rest: JSON.stringify(rest).replace(/\d+ seconds/, 'N seconds') };
    };
    const [real, unknown] = answers.map(comparable);
    expect(real!.status).toBe(429);
    expect(unknown!.status).toBe(real!.status);
    expect(unknown!.rest).toBe(real!.rest);
    expect(Math.abs(unknown!.seconds - real!.seconds)).toBeLessThanOrEqual(1);
  });
});

describe('throttling per client address', () => {
  it('answers 429 after 8 failures from one address across different accounts; other addresses still get 401', async () => {
    const clientIp = nextIp();
    for (let i = 0; i < 8; i++) expect((await fail(uniqueEmail('spray'), clientIp)).status).toBe(401);
    const { body: account } = await registered(identity);
    let response: Response | undefined;
    const checks = await countPasswordChecks(identity, async () => {
      response = await identity.login({ email: account.email, password: account.password }, { clientIp });
    });
    await expectThrottled(response!);
    expect(checks).toBe(0);
    expect((await identity.login({ email: account.email, password: account.password }, { clientIp: nextIp() })).status).toBe(200);
  });

  it('a successful login does not reset the address count', async () => {
    const clientIp = nextIp();
    const { body: account } = await registered(identity);
    for (let i = 0; i < 7; i++) await fail(uniqueEmail('spray'), clientIp);
    expect((await identity.login({ email: account.email, password: account.password }, { clientIp })).status).toBe(200);
    await fail(uniqueEmail('spray'), clientIp);
    await expectThrottled(await fail(uniqueEmail('spray'), clientIp));
  });

  it('counts an IPv6 /64 as one address', async () => {
    for (let i = 1; i <= 8; i++) expect((await fail(uniqueEmail('v6'), `2001:db8:abcd:12::${i.toString(16)}`)).status).toBe(401);
    await expectThrottled(await fail(uniqueEmail('v6'), '2001:db8:abcd:12:ffff:1:2:3'));
    expect((await fail(uniqueEmail('v6'), '2001:db8:abcd:13::1')).status).toBe(401);
    expect(await identity.redis.exists(`${identity.prefix}login-fail:addr:{2001:db8:abcd:12::/64}`)).toBe(1);
  });
});

describe('audit lines', () => {
  it('log failed and throttled logins with user id (when known), address and request id, never the e-mail or password', async () => {
    const { body: account, user } = await registered(identity);
    const clientIp = nextIp();
    const passwords: string[] = [];
    for (let i = 0; i < 5; i++) {
      const password = strongPassword();
      passwords.push(password);
      await identity.login({ email: account.email, password }, { clientIp, headers: { 'x-request-id': `req-fail-${i}` } });
    }
    const ghost = uniqueEmail('ghost');
    await identity.login({ email: ghost, password: strongPassword() }, { clientIp, headers: { 'x-request-id': 'req-ghost' } });
    await identity.login({ email: account.email, password: account.password }, { clientIp, headers: { 'x-request-id': 'req-throttled' } });
    expect(captured.lines).toContainEqual(
      expect.objectContaining({
        audit: 'user.login_failed',
        userId: user.id,
        reason: 'wrong_password',
        address: clientIp,
        requestId: 'req-fail-0',
      }),
    );
    const ghostLine = captured.lines.find((line) => line.audit === 'user.login_failed' && line.requestId === 'req-ghost');
    expect(ghostLine).toMatchObject({ reason: 'unknown_email', address: clientIp });
    expect(ghostLine).not.toHaveProperty('userId');
    expect(captured.lines).toContainEqual(
      expect.objectContaining({
        audit: 'user.login_throttled',
        limit: 'account_address',
        address: clientIp,
        requestId: 'req-throttled',
        retryAfterSeconds: expect.any(Number),
      }),
    );
    const text = captured.text();
    for (const secret of [account.password, ...passwords]) expect(text).not.toContain(secret);
    expect(text).not.toContain(account.email);
    expect(text).not.toContain(ghost);
  });
});

describe('when Redis is unreachable: each process limits sign-ins on its own counters', () => {
  let proxy: FaultProxy;
  let proxiedCache: Cache;
  let down: IdentityHarness;
  const prefix = `${uniqueName('identity_outage')}:`;

  beforeAll(async () => {
    proxy = await startFaultProxy(REDIS_URL, 6379);
    proxiedCache = createRedisCache({ url: proxy.url, keyPrefix: prefix, logger: silentLogger() });
    down = await startIdentity({ cache: proxiedCache, env: { LOGIN_MAX_FAILURES_PER_ACCOUNT_ADDRESS: '3' } });
  });

  afterAll(async () => {
    await down?.stop();
    await proxiedCache?.close();
    await proxy?.close();
    await deleteRedisKeys(prefix);
  });

  it('sign-in keeps working, the pair limit holds (no bcrypt past it), and the shared counters are used again once Redis is back', async () => {
    const { body: account } = await registered(down);
    const clientIp = nextIp();
    expect((await down.login({ email: account.email, password: strongPassword() }, { clientIp })).status).toBe(401); // counted in Redis
    proxy.cut();
    expect((await down.login({ email: account.email, password: account.password }, { clientIp: nextIp() })).status).toBe(200);
    for (let i = 0; i < 3; i++)
      expect((await down.login({ email: account.email, password: strongPassword() }, { clientIp })).status).toBe(401);
    let response: Response | undefined;
    const checks = await countPasswordChecks(down, async () => {
      response = await down.login({ email: account.email, password: account.password }, { clientIp });
    });
    expect(response!.status).toBe(429);
    expect(checks).toBe(0);
    expect(await scrapedValue(down, 'identity_login_local_limiter_total')).toBeGreaterThanOrEqual(5);
    proxy.restore();
    // Back on the shared counters: a sign-in no longer falls back, and a failure is counted in Redis.
    await waitUntil(async () => {
      const before = await scrapedValue(down, 'identity_login_local_limiter_total');
      const signedIn = (await down.login({ email: account.email, password: account.password }, { clientIp: nextIp() })).status === 200;
      return signedIn && (await scrapedValue(down, 'identity_login_local_limiter_total')) === before;
    });
    const fresh = nextIp();
    expect((await down.login({ email: account.email, password: strongPassword() }, { clientIp: fresh })).status).toBe(401);
    expect(await down.redis.get(`${prefix}${pairFailuresKey(account.email, fresh)}`)).toBe('1');
  }, 30_000);
});

async function waitUntil(probe: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function scrapedValue(harness: IdentityHarness, name: string): Promise<number> {
  return metricValue(await (await fetch(`${harness.url}/metrics`)).text(), name) ?? 0;
}

describe('timing: an unknown e-mail costs as much as a wrong password', () => {
  let slow: IdentityHarness;
  const COST = 10;

  beforeAll(async () => {
    slow = await startIdentity({
      env: { BCRYPT_COST: String(COST), LOGIN_MAX_FAILURES_PER_ACCOUNT: '100', LOGIN_MAX_FAILURES_PER_ADDRESS: '100' },
    });
  }, 60_000);

  afterAll(async () => {
    await slow?.stop();
  });

  // The least of each series: a busy machine (the other jest worker, CI's neighbours) only ever makes a run
  // slower, so the least is each one's own cost, and the three series are taken by turns to share the moments.
  const least = (values: number[]): number => Math.min(...values);

  async function timed(body: unknown): Promise<number> {
    const started = performance.now();
    const response = await slow.login(body, { clientIp: '192.0.2.77' });
    expect(response.status).toBe(401);
    await response.arrayBuffer();
    return performance.now() - started;
  }

  it(`both take at least 60% of one bcrypt comparison at cost ${COST}`, async () => {
    const { body: account } = await registered(slow);
    const hash = await bcrypt.hash('reference password', COST);
    const oneCompare: number[] = [];
    const unknown: number[] = [];
    const wrong: number[] = [];
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      await bcrypt.compare('another password', hash);
      oneCompare.push(performance.now() - started);
      unknown.push(await timed({ email: uniqueEmail('timing'), password: strongPassword() }));
      wrong.push(await timed({ email: account.email, password: strongPassword() }));
    }
    const floor = 0.6 * least(oneCompare);
    expect(least(unknown)).toBeGreaterThanOrEqual(floor);
    expect(least(wrong)).toBeGreaterThanOrEqual(floor);
    // And neither is far slower than the other (same work, one comparison each).
    expect(Math.abs(least(unknown) - least(wrong))).toBeLessThan(least(oneCompare));
  }, 60_000);
});
