import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { signedFetch } from '@acs/testing';
import {
  INTERNAL_SECRET,
  REGISTER_PATH,
  buildRegisterBody,
  countUsers,
  findRow,
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

interface ErrorBody {
  error: string;
  message: string;
  code: string;
  requestId?: string;
  details?: { path: string; message: string }[];
}

async function expectError(response: Response, status: number, error: string): Promise<ErrorBody> {
  expect(response.status).toBe(status);
  const body = (await response.json()) as ErrorBody;
  expect(body).toMatchObject({ error, message: expect.any(String) });
  return body;
}

describe('an e-mail that is already registered', () => {
  it('answers 409 for the same address and for any case variant, and creates nothing', async () => {
    const email = uniqueEmail('taken');
    expect((await identity.register(buildRegisterBody({ email }))).status).toBe(201);
    const before = await countUsers(identity.db);
    for (const variant of [email, email.toUpperCase(), email.toLowerCase()]) {
      const body = await expectError(await identity.register(buildRegisterBody({ email: variant })), 409, 'Conflict');
      expect(body.message).toBe('An account with this e-mail address already exists. Sign in with it, or register with another address.');
      expect(body.code).toBe('email_taken');
    }
    expect(await countUsers(identity.db)).toBe(before);
    expect((await findRow(identity.db, email))!.email).toBe(email);
  });

  it('lets exactly one of two simultaneous registrations of one address win', async () => {
    const email = uniqueEmail('race');
    const statuses = await Promise.all(
      [identity.register(buildRegisterBody({ email })), identity.register(buildRegisterBody({ email: email.toUpperCase() }))].map(
        async (r) => (await r).status,
      ),
    );
    expect(statuses.sort()).toEqual([201, 409]);
  });
});

describe('a body that is not a registration', () => {
  it('answers 400 to malformed JSON', async () => {
    const response = await signedFetch(identity.url, INTERNAL_SECRET, 'POST', REGISTER_PATH, { body: '{"email": "a@b.co", ' });
    const body = await expectError(response, 400, 'Bad request');
    expect(body.message).toBe('The request body is not valid JSON');
  });

  it('answers 400 to an empty body and to a body that is not JSON', async () => {
    await expectError(await signedFetch(identity.url, INTERNAL_SECRET, 'POST', REGISTER_PATH, {}), 400, 'Bad request');
    const text = await signedFetch(identity.url, INTERNAL_SECRET, 'POST', REGISTER_PATH, {
      body: 'email=a@b.co',
      headers: { 'content-type': 'text/plain' },
    });
    await expectError(text, 415, 'Unsupported media type');
  });

  it.each<[string, unknown]>([
    ['an array', []],
    ['a JSON string', '"hello"'],
    ['null', null],
    ['a number', 42],
  ])('answers 400 when the body is %s', async (_what, payload) => {
    const body = await expectError(await identity.register(payload), 400, 'Bad request');
    expect(body.message).toBe('The request body is invalid');
  });

  it('answers 400 naming every missing field', async () => {
    const body = await expectError(await identity.register({}), 400, 'Bad request');
    expect(body.details!.map((d) => d.path).sort()).toEqual(['body.email', 'body.firstName', 'body.lastName', 'body.password']);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['a number as e-mail', { email: 12345 }, 'body.email'],
    ['null as password', { password: null }, 'body.password'],
    ['a number as password', { password: 123456789012345 }, 'body.password'],
    ['an object as first name', { firstName: { first: 'Ada' } }, 'body.firstName'],
    ['an array as last name', { lastName: ['Love', 'lace'] }, 'body.lastName'],
    ['a boolean as last name', { lastName: true }, 'body.lastName'],
    ['an e-mail without domain', { email: 'ada@' }, 'body.email'],
    ['an e-mail with spaces', { email: ' ada@example.test ' }, 'body.email'],
    ['an e-mail without @', { email: 'ada.example.test' }, 'body.email'],
    [
      'an e-mail of 255 characters',
      { email: `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(59)}.test` },
      'body.email',
    ],
    ['an empty first name', { firstName: '' }, 'body.firstName'],
    ['a first name of spaces only', { firstName: '   ' }, 'body.firstName'],
    ['a last name of 101 characters', { lastName: 'x'.repeat(101) }, 'body.lastName'],
    ['a control character in a name', { firstName: 'Ada\u0000' }, 'body.firstName'],
    ['a newline in a name', { lastName: 'Love\nlace' }, 'body.lastName'],
  ])('answers 400 to %s, naming the field, and creates nothing', async (_what, override, path) => {
    const before = await countUsers(identity.db);
    const body = await expectError(await identity.register(buildRegisterBody(override)), 400, 'Bad request');
    expect(body.details).toEqual([{ path, message: expect.any(String) }]);
    expect(await countUsers(identity.db)).toBe(before);
  });

  it('accepts names of exactly 100 characters after trimming', async () => {
    const response = await identity.register(buildRegisterBody({ firstName: ` ${'n'.repeat(100)} ` }));
    expect(response.status).toBe(201);
  });

  it('answers 413 to an oversized body, before parsing it', async () => {
    const before = await countUsers(identity.db);
    const response = await identity.register(buildRegisterBody({ firstName: 'x'.repeat(100_000) }));
    const body = await expectError(response, 413, 'Payload too large');
    expect(body.message).toMatch(/exceeds the limit of 8192 bytes/);
    expect(await countUsers(identity.db)).toBe(before);
  });
});

describe('the password policy', () => {
  const email = (): string => uniqueEmail('policy');

  // Every row has four entries: jest treats a declared parameter beyond the row as `done`.
  it.each<[string, string, RegExp, string | undefined]>([
    ['11 characters', 'k7#Qm2!vXz9', /at least 12 characters/, undefined],
    ['73 bytes of ASCII', `${'v'.repeat(30)}${'q'.repeat(30)}r7n2k9w3b5x1z`, /at most 72 bytes/, undefined],
    ['30 emoji (120 bytes, though only 30 characters)', '🎧'.repeat(10) + '🎶'.repeat(10) + '🔊'.repeat(10), /at most 72 bytes/, undefined],
    ['a common password', 'qwertyuiopasdfghjkl', /commonly used/, undefined],
    ['a common password in another case', 'PasswordPassword', /commonly used/, undefined],
    ['a common password with digits added', 'password123456789', /commonly used/, undefined],
    ['a common password with symbols and digits around it', '!!2024dragon2024!!', /commonly used/, undefined],
    ['a digit run', '123456789012', /commonly used/, undefined],
    ['one character repeated', 'zzzzzzzzzzzzzzzz', /short pattern repeated/, undefined],
    ['a short pattern repeated', 'xyq7xyq7xyq7xyq7', /short pattern repeated/, undefined],
    ['the e-mail local part', 'my name is ada.lovelace.rocks', /before the @/, 'Ada.Lovelace@example.test'],
    ['the local part without its +tag', 'adalovelace in the studio', /before the @/, 'adalovelace+audio@example.test'],
  ])('refuses %s with 400, the policy in the message and the rule in details', async (_what, password, rule, address) => {
    const before = await countUsers(identity.db);
    const body = await expectError(await identity.register(buildRegisterBody({ email: address ?? email(), password })), 400, 'Bad request');
    expect(body.message).toMatch(
      /^The password does not meet the policy: at least 12 characters; at most 72 bytes in UTF-8; not a commonly used or repetitive password; not containing the part of the e-mail address before the @/,
    );
    expect(body.details).toContainEqual({ path: 'body.password', message: expect.stringMatching(rule) });
    expect(JSON.stringify(body)).not.toContain(password);
    expect(await countUsers(identity.db)).toBe(before);
  });

  it('lists every rule a password breaks', async () => {
    const body = await expectError(
      await identity.register(buildRegisterBody({ email: 'bob@example.test', password: 'bobbob' })),
      400,
      'Bad request',
    );
    expect(body.details!.map((d) => d.message)).toEqual([
      'The password must have at least 12 characters',
      'The password is a short pattern repeated',
      'The password must not contain the part of the e-mail address before the @',
    ]);
  });

  it.each<[string, string, string | undefined]>([
    ['exactly 12 characters', 'k7#Qm2!vXz9p', undefined],
    ['exactly 72 bytes', 'long passphrase about tubes and vinyl with many words in it, 72 byte'.padEnd(72, '.'), undefined],
    ['lower-case letters only, no digit or symbol', 'cobalt lantern meadow', undefined],
    ['a common word inside a longer passphrase', 'my dragon plays the cello', undefined],
    ['a local part of fewer than 3 characters, which is not checked', 'al goes to the record shop', `al@${Date.now()}.example.test`],
  ])('accepts %s (no composition rules)', async (_what, password, address) => {
    const response = await identity.register(buildRegisterBody({ email: address ?? email(), password }));
    expect(response.status).toBe(201);
  });

  it('counts characters after Unicode normalization (NFKC) and logs in with either form', async () => {
    const composed = 'caf\u00e9 au lait stereo';
    const decomposed = 'cafe\u0301 au lait stereo';
    const address = email();
    expect((await identity.register(buildRegisterBody({ email: address, password: decomposed }))).status).toBe(201);
    expect((await identity.login({ email: address, password: composed })).status).toBe(200);
    expect((await identity.login({ email: address, password: decomposed })).status).toBe(200);
  });

  it('a strong password from the harness is accepted', async () => {
    expect((await identity.register(buildRegisterBody({ password: strongPassword() }))).status).toBe(201);
  });
});
