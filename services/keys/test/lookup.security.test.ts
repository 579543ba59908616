import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { signContext } from '@acs/auth';
import { signedFetch } from '@acs/testing';
import { createApiKey } from '../src/index.js';
import { INTERNAL_SECRET, buildKeyInput, captureLogger, startKeys, unknownKey, type KeysHarness } from './harness.js';

let keys: KeysHarness;
let logText: () => string;
const PATH = '/internal/keys/lookup';

beforeAll(async () => {
  const captured = captureLogger();
  logText = captured.text;
  keys = await startKeys({ logger: captured.logger });
});

afterAll(async () => {
  await keys?.stop();
});

function post(headers: Record<string, string>, body: unknown): Promise<Response> {
  return fetch(`${keys.url}${PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

async function expectUnauthorized(response: Response): Promise<void> {
  expect(response.status).toBe(401);
  const body = (await response.json()) as Record<string, unknown>;
  expect(body).toMatchObject({ error: 'Unauthorized', message: 'This service only accepts requests signed by the gateway' });
  expect(body).not.toHaveProperty('record');
}

describe('POST /internal/keys/lookup without a valid gateway signature', () => {
  it('answers 401 without headers and gives nothing away, not even for a real key', async () => {
    const { apiKey } = await createApiKey(keys.deps, buildKeyInput());
    await keys.redis.del(`${keys.prefix}apikey:{${apiKey.key}}`);
    await expectUnauthorized(await post({}, { key: apiKey.key }));
    // Refused before the lookup ran: the deleted entry was not refilled.
    expect(await keys.cached(apiKey.key)).toBeNull();
  });

  it('answers 401 without writing a missing marker for an unknown key', async () => {
    const key = unknownKey();
    await expectUnauthorized(await post({}, { key }));
    expect(await keys.cached(key)).toBeNull();
  });

  it('answers 401 when signed with another secret', async () => {
    await expectUnauthorized(await signedFetch(keys.url, `${INTERNAL_SECRET}x`, 'POST', PATH, { body: { key: unknownKey() } }));
  });

  it('answers 401 when the signature was made for another method or path', async () => {
    const forGet = signContext(INTERNAL_SECRET, 'keys', 'GET', PATH, { requestId: 'r', keyId: null, scopes: [] });
    await expectUnauthorized(await post({ 'x-acs-context': forGet.context, 'x-acs-signature': forGet.signature }, { key: unknownKey() }));
    const forOther = signContext(INTERNAL_SECRET, 'keys', 'POST', '/api/Dac', { requestId: 'r', keyId: null, scopes: [] });
    await expectUnauthorized(
      await post({ 'x-acs-context': forOther.context, 'x-acs-signature': forOther.signature }, { key: unknownKey() }),
    );
  });

  it('answers 401 to a context signed for another service, on this very path', async () => {
    for (const other of ['identity', 'catalog', 'device', 'billing']) {
      const forOther = signContext(INTERNAL_SECRET, other, 'POST', PATH, { requestId: 'r', keyId: null, scopes: [] });
      await expectUnauthorized(
        await post({ 'x-acs-context': forOther.context, 'x-acs-signature': forOther.signature }, { key: unknownKey() }),
      );
    }
  });

  it('answers 401 to an expired context', async () => {
    const old = signContext(
      INTERNAL_SECRET,
      'keys',
      'POST',
      PATH,
      { requestId: 'r', keyId: null, scopes: [] },
      Math.floor(Date.now() / 1000) - 120,
    );
    await expectUnauthorized(await post({ 'x-acs-context': old.context, 'x-acs-signature': old.signature }, { key: unknownKey() }));
  });

  it('answers 401 before reading the body (an invalid body from an unsigned caller is not parsed)', async () => {
    await expectUnauthorized(await post({}, { nonsense: true }));
  });
});

describe('what the lookup reveals', () => {
  it('returns the secret hash the gateway needs, never a secret, and logs neither', async () => {
    const { apiKey, secret } = await createApiKey(keys.deps, buildKeyInput());
    const response = await keys.lookup({ key: apiKey.key });
    const text = await response.text();
    expect(text).not.toContain(secret);
    expect(Object.keys((JSON.parse(text) as { record: object }).record).sort()).toEqual([
      'id',
      'ownerUserId',
      'revoked',
      'scopes',
      'secretHash',
    ]);
    expect(logText()).not.toContain(secret);
    expect(logText()).not.toContain(apiKey.secretHash);
  });
});
