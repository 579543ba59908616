import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { startFaultProxy, testServerUrl, type FaultProxy } from '@acs/testing';
import { startSystemUnderTest, type SystemUnderTest } from './system-harness.js';
import { appKey, type Auth } from './actors.js';

// Issue 14: sign-in protection through the gateway that a stranger cannot turn against the owner.
// The test plays the Ingress (TRUSTED_PROXIES covers loopback), so X-Forwarded-For names the
// client address identity throttles by.

const PASSWORD = `quiet-needle-${randomBytes(6).toString('hex')}`;
let addressCounter = 0;
/** A client address no other test used. */
const freshAddress = (): string => `198.51.${100 + Math.floor(addressCounter / 250)}.${(addressCounter++ % 250) + 1}`;
const wrong = (): string => `wrong-${randomBytes(6).toString('hex')}`;
const uniqueEmail = (tag: string): string => `${tag}-${randomBytes(5).toString('hex')}@example.com`;

interface Answer {
  status: number;
  retryAfter: string | null;
  body: Record<string, unknown>;
}

function client(sut: SystemUnderTest, app: Auth) {
  const post = async (path: string, body: unknown, from: string): Promise<Answer> => {
    const res = await sut.call('POST', path, app, {
      headers: { 'content-type': 'application/json', 'x-forwarded-for': from },
      body: JSON.stringify(body),
    });
    return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as Record<string, unknown> };
  };
  return {
    login: (email: string, password: string, from: string) => post('/api/Users/Login', { email, password }, from),
    register: (email: string, from: string) =>
      post('/api/Users/Register', { email, password: PASSWORD, firstName: 'Ada', lastName: 'Lovelace' }, from),
  };
}

function expectThrottled(answer: Answer): void {
  expect(answer.status).toBe(429);
  const seconds = Number(answer.retryAfter);
  expect(seconds).toBeGreaterThan(0);
  expect(answer.body).toMatchObject({
    error: 'Too many requests',
    message: `Too many failed sign-in attempts. Try again in ${seconds} seconds.`,
  });
}

describe('sign-in limits through the gateway (window 15 minutes)', () => {
  let redis: FaultProxy;
  let sut: SystemUnderTest;
  let api: ReturnType<typeof client>;

  beforeAll(async () => {
    redis = await startFaultProxy(testServerUrl('REDIS_URL'), 6379);
    sut = await startSystemUnderTest({
      REDIS_URL: redis.url,
      TRUSTED_PROXIES: '127.0.0.0/8',
      LOGIN_MAX_FAILURES_PER_ACCOUNT_ADDRESS: '5',
      LOGIN_MAX_FAILURES_PER_ACCOUNT: '12',
      LOGIN_MAX_FAILURES_PER_ADDRESS: '15',
      LOGIN_FAILURE_WINDOW_SECONDS: '900',
    });
    api = client(sut, await appKey(sut, ['auth:register', 'auth:login']));
  }, 60_000);

  afterAll(async () => {
    await sut?.stop();
    await redis?.close();
  });

  async function owner(): Promise<{ email: string; home: string }> {
    const email = uniqueEmail('owner');
    const home = freshAddress();
    expect((await api.register(email, home)).status).toBe(201);
    expect((await api.login(email, PASSWORD, home)).status).toBe(200);
    return { email, home };
  }

  it("a stranger's five wrong passwords lock out only the stranger: the owner signs in at home and from a new address", async () => {
    const { email, home } = await owner();
    const attacker = freshAddress();
    for (let i = 0; i < 5; i++) expect((await api.login(email, wrong(), attacker)).status).toBe(401);
    expectThrottled(await api.login(email, PASSWORD, attacker)); // even the right password, from there
    expect((await api.login(email, PASSWORD, home)).status).toBe(200);
    expect((await api.login(email, PASSWORD, freshAddress())).status).toBe(200);
  });

  it('a distributed guess past the account-wide limit refuses new addresses only; the owner at a known address still signs in', async () => {
    const { email, home } = await owner();
    // 12 failures from 4 addresses (3 each, under the per-pair limit): the account-wide limit is reached.
    for (let i = 0; i < 4; i++) {
      const bot = freshAddress();
      for (let j = 0; j < 3; j++) expect((await api.login(email, wrong(), bot)).status).toBe(401);
    }
    expectThrottled(await api.login(email, PASSWORD, freshAddress()));
    expect((await api.login(email, PASSWORD, home)).status).toBe(200);
  });

  it('one address guessing across accounts is stopped after 15 failures; other addresses are not', async () => {
    const stuffer = freshAddress();
    for (let i = 0; i < 15; i++) expect((await api.login(uniqueEmail('stuffed'), wrong(), stuffer)).status).toBe(401);
    const { email } = await owner();
    expectThrottled(await api.login(email, PASSWORD, stuffer));
    expect((await api.login(email, PASSWORD, freshAddress())).status).toBe(200);
  });

  it('a successful sign-in resets the (account, address) count', async () => {
    const { email, home } = await owner();
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 4; i++) expect((await api.login(email, wrong(), home)).status).toBe(401);
      expect((await api.login(email, PASSWORD, home)).status).toBe(200);
    }
  });

  it('answers a throttled unknown e-mail exactly as a throttled real account', async () => {
    const { email } = await owner();
    const ghost = uniqueEmail('ghost');
    const from = freshAddress();
    for (let i = 0; i < 5; i++) {
      expect((await api.login(email, wrong(), from)).status).toBe(401);
      expect((await api.login(ghost, wrong(), from)).status).toBe(401);
    }
    const real = await api.login(email, PASSWORD, from);
    const unknown = await api.login(ghost, PASSWORD, from);
    expectThrottled(real);
    const comparable = ({ status, body }: Answer) => ({
      status,
      error: body.error,
      message: String(body.message).replace(/\d+ seconds/, 'N seconds'),
      fields: Object.keys(body).sort(),
    });
    expect(comparable(unknown)).toEqual(comparable(real));
    expect(Math.abs(Number(unknown.retryAfter) - Number(real.retryAfter))).toBeLessThanOrEqual(1);
  });

  it('40 parallel wrong passwords for one account from one address: exactly 5 x 401 and 35 x 429', async () => {
    const { email } = await owner();
    const from = freshAddress();
    const statuses = await Promise.all(Array.from({ length: 40 }, async () => (await api.login(email, wrong(), from)).status));
    expect(statuses.filter((status) => status === 401)).toHaveLength(5);
    expect(statuses.filter((status) => status === 429)).toHaveLength(35);
  }, 30_000);

  it('while Redis is down, sign-in still works and each process keeps the per-pair limit on its own counters', async () => {
    const { email, home } = await owner();
    redis.cut();
    try {
      expect((await api.login(email, PASSWORD, home)).status).toBe(200);
      const attacker = freshAddress();
      for (let i = 0; i < 5; i++) expect((await api.login(email, wrong(), attacker)).status).toBe(401);
      expectThrottled(await api.login(email, PASSWORD, attacker));
    } finally {
      redis.restore();
    }
  }, 60_000);
});

describe('limits through the gateway that end with their window', () => {
  let sut: SystemUnderTest;
  let api: ReturnType<typeof client>;

  beforeAll(async () => {
    sut = await startSystemUnderTest({
      TRUSTED_PROXIES: '127.0.0.0/8',
      LOGIN_MAX_FAILURES_PER_ACCOUNT_ADDRESS: '2',
      LOGIN_FAILURE_WINDOW_SECONDS: '3',
      REGISTRATION_MAX_PER_ADDRESS: '2',
    });
    api = client(sut, await appKey(sut, ['auth:register', 'auth:login']));
  }, 60_000);

  afterAll(async () => {
    await sut?.stop();
  });

  it('a throttled pair signs in again once the window has passed', async () => {
    const email = uniqueEmail('window');
    const from = freshAddress();
    expect((await api.register(email, from)).status).toBe(201);
    for (let i = 0; i < 2; i++) expect((await api.login(email, wrong(), from)).status).toBe(401);
    const throttled = await api.login(email, PASSWORD, from);
    expectThrottled(throttled);
    expect(Number(throttled.retryAfter)).toBeLessThanOrEqual(3);
    await new Promise((resolve) => setTimeout(resolve, Number(throttled.retryAfter) * 1000 + 200));
    expect((await api.login(email, PASSWORD, from)).status).toBe(200);
  });

  it('registrations are limited per address (429 with Retry-After); a taken e-mail gets 409 saying to sign in', async () => {
    const from = freshAddress();
    const email = uniqueEmail('first');
    expect((await api.register(email, from)).status).toBe(201);
    const taken = await api.register(email.toUpperCase(), from);
    expect(taken.status).toBe(409);
    expect(String(taken.body.message)).toMatch(/Sign in with it/);
    const refused = await api.register(uniqueEmail('third'), from);
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    expect((await api.register(uniqueEmail('elsewhere'), freshAddress())).status).toBe(201);
  });
});
