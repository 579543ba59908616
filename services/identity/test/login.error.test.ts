import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { signedFetch } from '@acs/testing';
import { INVALID_CREDENTIALS } from '../src/index.js';
import {
  INTERNAL_SECRET,
  LOGIN_PATH,
  countPasswordChecks,
  registered,
  startIdentity,
  strongPassword,
  uniqueEmail,
  type IdentityHarness,
} from './harness.js';

let identity: IdentityHarness;

beforeAll(async () => {
  identity = await startIdentity();
});

afterAll(async () => {
  await identity?.stop();
});

let ip = 0;
/** Each test its own client address, so the per-address counter never links tests. */
const nextIp = (): string => {
  ip += 1;
  return `198.51.100.${ip}`;
};

describe('a failed login', () => {
  it('answers the same 401 body for an unknown e-mail and for a wrong password', async () => {
    const { body: account } = await registered(identity);
    const headers = { 'x-request-id': 'req-same' };
    const unknown = await identity.login({ email: uniqueEmail('nobody'), password: account.password }, { headers, clientIp: nextIp() });
    const wrong = await identity.login({ email: account.email, password: `${account.password}x` }, { headers, clientIp: nextIp() });
    expect(unknown.status).toBe(401);
    expect(wrong.status).toBe(401);
    const [unknownText, wrongText] = [await unknown.text(), await wrong.text()];
    expect(unknownText).toBe(wrongText);
    expect(JSON.parse(unknownText)).toEqual({ ...INVALID_CREDENTIALS, requestId: 'req-same' });
    expect(INVALID_CREDENTIALS).toMatchObject({
      error: 'Invalid credentials',
      message: 'The e-mail or password is incorrect',
      code: 'invalid_login',
    });
    expect([...unknown.headers.keys()].sort()).toEqual([...wrong.headers.keys()].sort());
  });

  it('runs one bcrypt comparison for an unknown e-mail, as for a wrong password', async () => {
    const { body: account } = await registered(identity);
    expect(
      await countPasswordChecks(
        identity,
        async () => void (await identity.login({ email: uniqueEmail('ghost'), password: strongPassword() }, { clientIp: nextIp() })),
      ),
    ).toBe(1);
    expect(
      await countPasswordChecks(
        identity,
        async () => void (await identity.login({ email: account.email, password: strongPassword() }, { clientIp: nextIp() })),
      ),
    ).toBe(1);
  });

  it('refuses a password longer than 72 bytes that starts with the right 72 (no silent truncation)', async () => {
    const password = 'long passphrase about tubes and vinyl with many words in it, 72 byte'.padEnd(72, '.');
    const { body: account } = await registered(identity, { password });
    expect((await identity.login({ email: account.email, password }, { clientIp: nextIp() })).status).toBe(200);
    const longer = await identity.login({ email: account.email, password: `${password}and more` }, { clientIp: nextIp() });
    expect(longer.status).toBe(401);
    expect(await longer.json()).toMatchObject(INVALID_CREDENTIALS);
  });

  it('is case-sensitive for the password', async () => {
    const { body: account } = await registered(identity);
    expect((await identity.login({ email: account.email, password: account.password.toUpperCase() }, { clientIp: nextIp() })).status).toBe(
      401,
    );
  });
});

describe('a login body that is not a login', () => {
  it.each<[string, unknown, string[]]>([
    ['empty object', {}, ['body.email', 'body.password']],
    ['a number as e-mail', { email: 42, password: 'x'.repeat(12) }, ['body.email']],
    ['not an e-mail', { email: 'ada', password: 'x'.repeat(12) }, ['body.email']],
    ['an empty password', { email: 'ada@example.test', password: '' }, ['body.password']],
    ['null as password', { email: 'ada@example.test', password: null }, ['body.password']],
    ['an array', [], ['body']],
  ])('answers 400 to %s, naming the fields, without a bcrypt run', async (_what, payload, paths) => {
    let status = 0;
    let details: { path: string }[] = [];
    const checks = await countPasswordChecks(identity, async () => {
      const response = await identity.login(payload, { clientIp: nextIp() });
      status = response.status;
      details = ((await response.json()) as { details: { path: string }[] }).details;
    });
    expect(status).toBe(400);
    expect(details.map((d) => d.path).sort()).toEqual(paths);
    expect(checks).toBe(0);
  });

  it('answers 400 to malformed JSON and 413 to an oversized body', async () => {
    const malformed = await signedFetch(identity.url, INTERNAL_SECRET, 'POST', LOGIN_PATH, { body: '{"email":' });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ error: 'Bad request', message: 'The request body is not valid JSON' });
    const huge = await identity.login({ email: 'ada@example.test', password: 'p'.repeat(20_000) });
    expect(huge.status).toBe(413);
    expect(await huge.json()).toMatchObject({ error: 'Payload too large' });
  });
});
