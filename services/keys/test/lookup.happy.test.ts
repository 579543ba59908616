import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { MISSING_KEY_TTL_SECONDS, apiKeyCacheKey, keyLookupResponseSchema } from '@acs/contracts';
import { createApiKey, revokeApiKey } from '../src/index.js';
import { applySeedKey } from '../src/domain/operator-keys.js';
import { buildKeyInput, newSecret, sha256, startKeys, unknownKey, type KeysHarness } from './harness.js';

let keys: KeysHarness;

beforeAll(async () => {
  keys = await startKeys();
});

afterAll(async () => {
  await keys?.stop();
});

async function lookup(key: string): Promise<unknown> {
  const response = await keys.lookup({ key });
  expect(response.status).toBe(200);
  const body = (await response.json()) as unknown;
  expect(keyLookupResponseSchema.safeParse(body).success).toBe(true);
  return body;
}

describe('POST /internal/keys/lookup', () => {
  it('answers a known key with its record', async () => {
    const { apiKey, secret } = await createApiKey(keys.deps, buildKeyInput({ scopes: ['auth:login', 'read:devices'], ownerUserId: 31 }));
    expect(await lookup(apiKey.key)).toEqual({
      record: { id: apiKey.id, secretHash: sha256(secret), scopes: ['auth:login', 'read:devices'], ownerUserId: 31, revoked: false },
    });
  });

  it('refills a cache entry that was deleted (expired or evicted), at the database version', async () => {
    const { apiKey } = await createApiKey(keys.deps, buildKeyInput());
    await revokeApiKey(keys.deps, apiKey.id);
    await keys.redis.del(`${keys.prefix}apikey:{${apiKey.key}}`);
    expect(await keys.cached(apiKey.key)).toBeNull();
    expect(await lookup(apiKey.key)).toMatchObject({ record: { id: apiKey.id, revoked: true } });
    expect(await keys.cached(apiKey.key)).toMatchObject({ version: 2, record: { id: apiKey.id, revoked: true } });
  });

  it('answers a revoked key with its record marked revoked (the gateway refuses it)', async () => {
    const { apiKey } = await createApiKey(keys.deps, buildKeyInput());
    await revokeApiKey(keys.deps, apiKey.id);
    expect(await lookup(apiKey.key)).toMatchObject({ record: { revoked: true } });
  });

  it('answers an unknown well-formed key with null and caches the missing marker briefly', async () => {
    const key = unknownKey();
    expect(await lookup(key)).toEqual({ record: null });
    const raw = await keys.redis.get(`${keys.prefix}apikey:{${key}}`);
    expect(raw).toBe('0|"missing"');
    const cached = await keys.cached(key);
    expect(cached).toMatchObject({ version: 0, record: 'missing' });
    expect(cached!.ttlSeconds).toBeGreaterThan(0);
    expect(cached!.ttlSeconds).toBeLessThanOrEqual(MISSING_KEY_TTL_SECONDS);
  });

  it('lets a key created later replace its missing marker at once', async () => {
    const key = unknownKey('acs', 'test');
    expect(await lookup(key)).toEqual({ record: null });
    await applySeedKey(keys.deps, { key, secret: newSecret(), scopes: 'read:devices', name: 'late key' });
    expect(await keys.cached(key)).toMatchObject({ version: 1, record: { scopes: ['read:devices'], revoked: false } });
    expect(await lookup(key)).toMatchObject({ record: { scopes: ['read:devices'] } });
  });

  it('does not let a refill overwrite a newer entry', async () => {
    const { apiKey } = await createApiKey(keys.deps, buildKeyInput());
    await revokeApiKey(keys.deps, apiKey.id);
    // Simulate a refill that read the row before the revocation and lands after it.
    const before = JSON.stringify({
      id: apiKey.id,
      secretHash: apiKey.secretHash,
      scopes: apiKey.scopes,
      ownerUserId: apiKey.ownerUserId,
      revoked: false,
    });
    expect(await keys.cache.setIfNewer(apiKeyCacheKey(apiKey.key), 1, before, 60)).toBe(false);
    expect(await lookup(apiKey.key)).toMatchObject({ record: { revoked: true } });
    expect(await keys.cached(apiKey.key)).toMatchObject({ version: 2, record: { revoked: true } });
  });
});
