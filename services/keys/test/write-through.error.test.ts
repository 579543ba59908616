import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { createRedisCache, type Cache } from '@acs/cache';
import { changeApiKey, createApiKey, openKeysDeps, revokeApiKey, type KeysDeps } from '../src/index.js';
import { applySeedKey } from '../src/domain/operator-keys.js';
import {
  buildKeyInput,
  closedRedisUrl,
  findRow,
  keysConfig,
  newSecret,
  silentLogger,
  startKeys,
  unknownKey,
  type KeysHarness,
} from './harness.js';

let keys: KeysHarness;
let deadCache: Cache;
/** The same database as `keys`, with a cache on a port where nothing listens. */
let down: KeysDeps;

beforeAll(async () => {
  keys = await startKeys();
  deadCache = createRedisCache({ url: await closedRedisUrl(), keyPrefix: keys.prefix, logger: silentLogger() });
  down = await openKeysDeps(keysConfig(keys.database, keys.prefix), silentLogger(), deadCache);
});

afterAll(async () => {
  await down?.db.close();
  await deadCache?.close();
  await keys?.stop();
});

async function countRows(): Promise<number> {
  const { rows } = await keys.db.query<{ n: number }>('SELECT count(*) AS n FROM api_keys');
  return rows[0]!.n;
}

describe('when Redis is unreachable', () => {
  it('a scope change fails and leaves the database and the cache as they were', async () => {
    const { apiKey } = await createApiKey(keys.deps, buildKeyInput({ scopes: ['read:devices'] }));
    const started = Date.now();
    await expect(changeApiKey(down, apiKey.id, { scopes: ['write:devices'] })).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await findRow(keys.db, apiKey.key)).toMatchObject({ scopes: ['read:devices'], version: 1, revoked_at: null });
    expect(await keys.cached(apiKey.key)).toMatchObject({ version: 1, record: { scopes: ['read:devices'] } });
  });

  it('a revocation fails and leaves the key usable in both places (no half-applied state)', async () => {
    const { apiKey } = await createApiKey(keys.deps, buildKeyInput());
    await expect(revokeApiKey(down, apiKey.id)).rejects.toThrow();
    expect(await findRow(keys.db, apiKey.key)).toMatchObject({ revoked_at: null, version: 1 });
    expect(await keys.cached(apiKey.key)).toMatchObject({ version: 1, record: { revoked: false } });
  });

  it('a creation fails and inserts no row', async () => {
    const before = await countRows();
    const input = buildKeyInput();
    await expect(createApiKey(down, input)).rejects.toThrow();
    expect(await countRows()).toBe(before);
    const { rows } = await keys.db.query('SELECT 1 FROM api_keys WHERE name = $1', [input.name]);
    expect(rows).toHaveLength(0);
  });

  it('a seed fails and inserts no row', async () => {
    const key = unknownKey();
    await expect(applySeedKey(down, { key, secret: newSecret(), scopes: 'read:devices', name: 'seed' })).rejects.toThrow();
    expect(await findRow(keys.db, key)).toBeNull();
  });

  it('the same change succeeds once the cache answers again', async () => {
    const { apiKey } = await createApiKey(keys.deps, buildKeyInput({ scopes: ['read:devices'] }));
    await expect(changeApiKey(down, apiKey.id, { scopes: ['auth:login'] })).rejects.toThrow();
    const changed = await changeApiKey(keys.deps, apiKey.id, { scopes: ['auth:login'] });
    expect(changed.version).toBe(2);
    expect(await keys.cached(apiKey.key)).toMatchObject({ version: 2, record: { scopes: ['auth:login'] } });
  });
});

describe('when the cache write lands but its answer is lost (a timeout)', () => {
  it('the change is rolled back and the entry that landed is dropped, so the gateway refills the truth', async () => {
    const { apiKey } = await createApiKey(keys.deps, buildKeyInput({ scopes: ['read:devices'] }));
    // The real Redis cache, whose versioned write succeeds and then reports a failure.
    const lossy: Cache = {
      ...keys.cache,
      setIfNewer: async (key, version, value, ttl) => {
        await keys.cache.setIfNewer(key, version, value, ttl);
        throw new Error('Command timed out');
      },
    };
    await expect(changeApiKey({ ...keys.deps, cache: lossy }, apiKey.id, { scopes: ['system:full-access'] })).rejects.toThrow(
      'Command timed out',
    );
    expect(await findRow(keys.db, apiKey.key)).toMatchObject({ scopes: ['read:devices'], version: 1 });
    expect(await keys.cached(apiKey.key)).toBeNull();
    // The next change reuses version 2 and must be visible (nothing left claims version 2).
    await changeApiKey(keys.deps, apiKey.id, { scopes: ['auth:login'] });
    expect(await keys.cached(apiKey.key)).toMatchObject({ version: 2, record: { scopes: ['auth:login'] } });
  });

  it('a commit that fails after the cache write drops the entry too', async () => {
    const { apiKey } = await createApiKey(keys.deps, buildKeyInput({ scopes: ['read:devices'] }));
    // Fail the transaction after the write-through: a deferred constraint-like failure at the end.
    const failingDb = {
      ...keys.deps.db,
      kind: keys.deps.db.kind,
      query: keys.deps.db.query.bind(keys.deps.db),
      ping: keys.deps.db.ping.bind(keys.deps.db),
      close: keys.deps.db.close.bind(keys.deps.db),
      transaction: <T>(fn: Parameters<KeysDeps['db']['transaction']>[0]) =>
        keys.deps.db.transaction(async (tx) => {
          await fn(tx);
          throw new Error('commit failed');
        }) as Promise<T>,
    };
    await expect(changeApiKey({ ...keys.deps, db: failingDb }, apiKey.id, { scopes: ['auth:login'] })).rejects.toThrow('commit failed');
    expect(await findRow(keys.db, apiKey.key)).toMatchObject({ scopes: ['read:devices'], version: 1 });
    expect(await keys.cached(apiKey.key)).toBeNull();
  });
});
