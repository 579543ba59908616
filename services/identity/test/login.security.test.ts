import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import bcrypt from 'bcrypt';
import { createRedisCache, type Cache } from '@acs/cache';
import { INVALID_CREDENTIALS } from '../src/index.js';
import { captureLogger, closedRedisUrl, countPasswordChecks, registered, silentLogger, startIdentity, strongPassword, uniqueEmail, type IdentityHarness } from './harness.js';

let identity: IdentityHarness;
const captured = captureLogger();

beforeAll(async () => {
  identity = await startIdentity({ logger: captured.logger, env: { LOGIN_MAX_FAILURES_PER_ACCOUNT: '5', LOGIN_MAX_FAILURES_PER_ADDRESS: '8', LOGIN_FAILURE_WINDOW_SECONDS: '900' } });
});

afterAll(async () => {
  await identity?.stop();
});

let ip = 0;
const nextIp = (): string => `203.0.113.${(ip += 1)}`;

async function fail(email: string, clientIp: string): Promise<Response> {
  return identity.login({ email, password: strongPassword() }, { clientIp });
}

async function expectThrottled(response: Response): Promise<number> {
  expect(response.status).toBe(429);
  const retryAfter = Number(response.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(900);
  const body = (await response.json()) as { error: string; message: string };
  expect(body).toMatchObject({ error: 'Too many requests', message: `Too many failed sign-in attempts. Try again in ${retryAfter} seconds.` });
  return retryAfter;
}

describe('throttling per account', () => {
  it('answers 429 with Retry-After after 5 failures, even with the right password, without running bcrypt', async () => {
    const { body: account } = await registered(identity);
    for (let i = 0; i < 5; i++) expect((await fail(account.email, nextIp())).status).toBe(401);
    let response: Response | undefined;
    const checks = await countPasswordChecks(identity, async () => {
      response = await identity.login({ email: account.email, password: account.password }, { clientIp: nextIp() });
    });
    await expectThrottled(response!);
    expect(checks).toBe(0);
  });

  it('counts the e-mail in any case as one account', async () => {
    const { body: account } = await registered(identity);
    for (const email of [account.email, account.email.toUpperCase(), account.email.toLowerCase(), account.email, account.email.toUpperCase()]) {
      expect((await fail(email, nextIp())).status).toBe(401);
    }
    await expectThrottled(await fail(account.email.toLowerCase(), nextIp()));
  });

  it('throttles an unknown e-mail the same way (the answers do not tell accounts apart)', async () => {
    const email = uniqueEmail('ghost');
    for (let i = 0; i < 5; i++) expect((await fail(email, nextIp())).status).toBe(401);
    await expectThrottled(await fail(email, nextIp()));
  });

  it('a successful login resets the account count', async () => {
    const { body: account } = await registered(identity);
    const clientIp = nextIp();
    for (let i = 0; i < 4; i++) expect((await fail(account.email, clientIp)).status).toBe(401);
    expect((await identity.login({ email: account.email, password: account.password }, { clientIp })).status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await fail(account.email, nextIp())).status).toBe(401);
    expect((await identity.login({ email: account.email, password: account.password }, { clientIp: nextIp() })).status).toBe(200);
  });

  it('keeps no raw e-mail in Redis: the account key is a SHA-256 of the lower-cased address', async () => {
    const email = uniqueEmail('Hashed');
    await fail(email, nextIp());
    const keys = await identity.redis.keys(`${identity.prefix}login-fail:*`);
    expect(keys.join('\n')).not.toMatch(/@/);
    const { createHash } = await import('node:crypto');
    expect(keys).toContain(`${identity.prefix}login-fail:acct:${createHash('sha256').update(email.toLowerCase()).digest('hex')}`);
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
    expect(await identity.redis.exists(`${identity.prefix}login-fail:addr:2001:db8:abcd:12::/64`)).toBe(1);
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
    expect(captured.lines).toContainEqual(expect.objectContaining({ audit: 'user.login_failed', userId: user.id, reason: 'wrong_password', address: clientIp, requestId: 'req-fail-0' }));
    const ghostLine = captured.lines.find((line) => line.audit === 'user.login_failed' && line.requestId === 'req-ghost');
    expect(ghostLine).toMatchObject({ reason: 'unknown_email', address: clientIp });
    expect(ghostLine).not.toHaveProperty('userId');
    expect(captured.lines).toContainEqual(expect.objectContaining({ audit: 'user.login_throttled', address: clientIp, requestId: 'req-throttled', retryAfterSeconds: expect.any(Number) }));
    const text = captured.text();
    for (const secret of [account.password, ...passwords]) expect(text).not.toContain(secret);
    expect(text).not.toContain(account.email);
    expect(text).not.toContain(ghost);
  });
});

describe('when Redis is unreachable', () => {
  let deadCache: Cache;
  let down: IdentityHarness;

  beforeAll(async () => {
    deadCache = createRedisCache({ url: await closedRedisUrl(), keyPrefix: 'unused:', logger: silentLogger() });
    down = await startIdentity({ cache: deadCache });
  });

  afterAll(async () => {
    await down?.stop();
    await deadCache?.close();
  });

  it('login fails closed with 503 and runs no bcrypt (an unlimited login is never offered)', async () => {
    let response: Response | undefined;
    const checks = await countPasswordChecks(down, async () => {
      response = await down.login({ email: uniqueEmail('down'), password: strongPassword() }, { clientIp: nextIp() });
    });
    expect(response!.status).toBe(503);
    expect(await response!.json()).toMatchObject({ error: 'Service unavailable', message: 'Sign-in is temporarily unavailable. Try again shortly.' });
    expect(checks).toBe(0);
  });
});

describe('timing: an unknown e-mail costs as much as a wrong password', () => {
  let slow: IdentityHarness;
  const COST = 10;

  beforeAll(async () => {
    slow = await startIdentity({ env: { BCRYPT_COST: String(COST), LOGIN_MAX_FAILURES_PER_ACCOUNT: '100', LOGIN_MAX_FAILURES_PER_ADDRESS: '100' } });
  }, 60_000);

  afterAll(async () => {
    await slow?.stop();
  });

  const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

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
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      await bcrypt.compare('another password', hash);
      oneCompare.push(performance.now() - started);
    }
    const unknown: number[] = [];
    const wrong: number[] = [];
    for (let i = 0; i < 3; i++) {
      unknown.push(await timed({ email: uniqueEmail('timing'), password: strongPassword() }));
      wrong.push(await timed({ email: account.email, password: strongPassword() }));
    }
    const floor = 0.6 * median(oneCompare);
    expect(median(unknown)).toBeGreaterThanOrEqual(floor);
    expect(median(wrong)).toBeGreaterThanOrEqual(floor);
    // And neither is far slower than the other (same work, one comparison each).
    expect(Math.abs(median(unknown) - median(wrong))).toBeLessThan(median(oneCompare));
  }, 60_000);
});
