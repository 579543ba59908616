import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startFakeUpstream, testServerUrl, type FakeUpstream } from '@acs/testing';
import { createRedisCache, type Cache } from '@acs/cache';
import { SPEC_ERRORS } from '@acs/errors';
import { hashSecret } from '@acs/auth';
import { changeApiKey, rollKey } from '@acs/keys-service';
import { startGatewayHarness, type GatewayHarness } from './harness.js';

// Issue 31.1 (docs/key-format.md): a secret that starts like the current format but fails its checksum is
// refused before the gateway reads anything, with the same 401 as an unknown key; legacy secrets still work.

let h: GatewayHarness;
let catalog: FakeUpstream;
let counted: Cache;
let reads = 0;
let viaCounted: string;

/** A Redis cache that counts the gateway's per-request exchanges and reads. */
function countingCache(prefix: string): Cache {
  const cache = createRedisCache({ url: testServerUrl('REDIS_URL'), keyPrefix: prefix });
  const exchange = cache.requestReads!.exchange.bind(cache.requestReads);
  const mget = cache.mget.bind(cache);
  return {
    ...cache,
    requestReads: {
      ...cache.requestReads!,
      exchange: (groups) => {
        reads++;
        return exchange(groups);
      },
    },
    mget: (keys) => {
      reads++;
      return mget(keys);
    },
  };
}

beforeAll(async () => {
  catalog = await startFakeUpstream();
  h = await startGatewayHarness({ CATALOG_URL: catalog.url });
  counted = countingCache(h.redisPrefix);
  viaCounted = (await h.startAnotherGateway({ cache: counted })).server.url;
});
afterAll(async () => {
  await h.close();
  await counted.close();
  await catalog.close();
});

const get = (auth: { key: string; secret: string }) =>
  fetch(`${viaCounted}/api/Dac`, { headers: { 'x-api-key': auth.key, 'x-api-secret': auth.secret } });

/** The body without its requestId. */
async function bodyOf(res: Response): Promise<Record<string, unknown>> {
  const { requestId: _requestId, ...rest } = (await res.json()) as Record<string, unknown>;
  return rest;
}

describe('the secret format at the gateway', () => {
  it('new keys get a secret of the current format that opens the key', async () => {
    const key = await h.createKey(['read:devices']);
    expect(key.secret).toMatch(/^acs_test_[A-Za-z0-9]{36}$/);
    expect((await get(key)).status).toBe(200);
  });

  it('refuses a wrong checksum, length or environment without any Redis read, with the unknown key body', async () => {
    const key = await h.createKey(['read:devices']);
    const last = key.secret.at(-1) === 'A' ? 'B' : 'A';
    const unknown = await bodyOf(await get({ key: 'acs_test_AAAAAAAAAAAAAAAAAAAAAAAA', secret: key.secret }));
    expect(unknown).toMatchObject({ error: SPEC_ERRORS.missingApiKey.error, code: 'invalid_credentials' });
    const before = reads;
    for (const secret of [
      key.secret.slice(0, -1) + last,
      key.secret.slice(0, -1),
      key.secret.replace('acs_test_', 'acs_live_'),
      `acs_test_${'x'.repeat(36)}`,
    ]) {
      const res = await get({ key: key.key, secret });
      expect(res.status).toBe(401);
      expect(await bodyOf(res)).toEqual(unknown);
    }
    expect(reads).toBe(before);
    expect((await get(key)).status).toBe(200);
    expect(reads).toBeGreaterThan(before);
  });

  it('refuses them without a read also once the gateway has seen the key (its record skips the checksum only for its own secret)', async () => {
    const key = await h.createKey(['read:devices']);
    expect((await get(key)).status).toBe(200);
    const last = key.secret.at(-1) === 'A' ? 'B' : 'A';
    const before = reads;
    for (const secret of [key.secret.slice(0, -1) + last, `acs_test_${'x'.repeat(36)}`]) {
      expect((await get({ key: key.key, secret })).status).toBe(401);
    }
    expect(reads).toBe(before);
    expect((await get(key)).status).toBe(200);
    expect(reads).toBe(before + 1);
  });

  it('keeps a legacy secret working until the key is rolled, then the new one only', async () => {
    const key = await h.createKey(['read:devices']);
    // A key made before issue 31: a base64url secret, as the keys service stored it then.
    const legacy = 'Zm9yLXRlc3RzLW9ubHktYS1sZWdhY3ktc2VjcmV0LTAx';
    await h.keys.deps.db.query('UPDATE api_keys SET secret_hash = $1, version = version + 1 WHERE id = $2', [hashSecret(legacy), key.id]);
    const rolled = await rollKey(h.keys.deps, key.id, 0);
    // The database change above did not go through the cache: the roll wrote the key through, legacy hash replaced.
    expect(rolled.secret).toMatch(/^acs_test_[A-Za-z0-9]{36}$/);
    expect((await get({ key: key.key, secret: legacy })).status).toBe(401);
    expect((await get({ key: key.key, secret: rolled.secret })).status).toBe(200);
  });

  it('accepts a legacy secret on a key that has one', async () => {
    const key = await h.createKey(['read:devices']);
    const legacy = 'bGVnYWN5LXNlY3JldC1mb3ItdGhlLWdhdGV3YXktdGVzdA';
    await h.keys.deps.db.query('UPDATE api_keys SET secret_hash = $1, version = version + 1 WHERE id = $2', [hashSecret(legacy), key.id]);
    // Refill the cache from the database, as any write-through does.
    await h.cache.del(`apikey:{${key.key}}`);
    expect((await get({ key: key.key, secret: legacy })).status).toBe(200);
    expect((await get(key)).status).toBe(401);
  });
});

describe('the IP allow-list at the gateway (issue 31.3)', () => {
  it('checks it from the record it already reads: one Redis exchange per request, as for a key without a list', async () => {
    const plain = await h.createKey(['read:devices']);
    const listed = await h.createKey(['read:devices']);
    await changeApiKey(h.keys.deps, listed.id, { ipAllowList: ['203.0.113.0/24', '127.0.0.1'] });
    const refused = await h.createKey(['read:devices']);
    await changeApiKey(h.keys.deps, refused.id, { ipAllowList: ['203.0.113.0/24'] });
    for (const key of [plain, listed, refused]) await get(key); // each record parsed once
    const exchangesOf = async (key: { key: string; secret: string }, status: number) => {
      const before = reads;
      for (let i = 0; i < 3; i++) expect((await get(key)).status).toBe(status);
      return reads - before;
    };
    expect(await exchangesOf(plain, 200)).toBe(3);
    expect(await exchangesOf(listed, 200)).toBe(3);
    expect(await exchangesOf(refused, 403)).toBe(3);
  });
});
