import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { API_KEY_CACHE_TTL_SECONDS, apiKeyCacheKey } from '@acs/contracts';
import { SYSTEM_SCOPE, secretMatchesHash } from '@acs/auth';
import { AppError } from '@acs/errors';
import { changeApiKey, createApiKey, ensureSystemKey, revokeApiKey } from '../src/index.js';
import { buildKeyInput, captureLogger, findRow, sha256, startKeys, tableText, type KeysHarness, type LogLine } from './harness.js';

let keys: KeysHarness;
let logs: LogLine[];
let logText: () => string;

beforeAll(async () => {
  const captured = captureLogger();
  logs = captured.lines;
  logText = captured.text;
  keys = await startKeys({ logger: captured.logger });
});

afterAll(async () => {
  await keys?.stop();
});

describe('createApiKey', () => {
  it('stores only a hash of the secret: the secret appears nowhere in the database', async () => {
    const input = buildKeyInput({ scopes: ['auth:login', 'read:devices'] });
    const { apiKey, secret } = await createApiKey(keys.deps, input);
    const row = await findRow(keys.db, apiKey.key);
    expect(row).toMatchObject({
      id: apiKey.id,
      name: input.name,
      scopes: ['auth:login', 'read:devices'],
      owner_user_id: input.ownerUserId,
      environment: 'live',
      revoked_at: null,
      version: 1,
    });
    expect(row!.secret_hash).toBe(sha256(secret));
    expect(secretMatchesHash(secret, row!.secret_hash)).toBe(true);
    expect(await tableText(keys.db)).not.toContain(secret);
    expect(secret.length).toBeGreaterThanOrEqual(43);
  });

  it('writes the versioned projection to <prefix>apikey:{<key>} before it returns', async () => {
    const input = buildKeyInput({ scopes: ['register:device', 'auth:login'] });
    const { apiKey, secret } = await createApiKey(keys.deps, input);
    const raw = await keys.redis.get(`${keys.prefix}apikey:{${apiKey.key}}`);
    expect(raw).toMatch(/^1\|\{/);
    const cached = await keys.cached(apiKey.key);
    expect(cached).toEqual({
      version: 1,
      record: {
        id: apiKey.id,
        secretHash: sha256(secret),
        scopes: ['register:device', 'auth:login'],
        ownerUserId: input.ownerUserId,
        revoked: false,
      },
      ttlSeconds: expect.any(Number),
    });
    expect(cached!.ttlSeconds).toBeGreaterThan(API_KEY_CACHE_TTL_SECONDS - 60);
    expect(cached!.ttlSeconds).toBeLessThanOrEqual(API_KEY_CACHE_TTL_SECONDS);
    expect(raw).not.toContain(secret);
  });

  it('makes keys in the format <prefix>_<live|test>_<identifier> for both environments', async () => {
    const live = await createApiKey(keys.deps, buildKeyInput({ environment: 'live' }));
    const test = await createApiKey(keys.deps, buildKeyInput({ environment: 'test' }));
    expect(live.apiKey.key).toMatch(/^acs_live_[A-Za-z0-9]{24}$/);
    expect(test.apiKey.key).toMatch(/^acs_test_[A-Za-z0-9]{24}$/);
    expect((await findRow(keys.db, test.apiKey.key))!.environment).toBe('test');
    const other = await createApiKey({ ...keys.deps, keyPrefix: 'demo7' }, buildKeyInput({ environment: 'test' }));
    expect(other.apiKey.key).toMatch(/^demo7_test_[A-Za-z0-9]{24}$/);
    expect(new Set([live, test, other].map((k) => k.apiKey.key)).size).toBe(3);
    expect(new Set([live, test, other].map((k) => k.secret)).size).toBe(3);
  });

  it('logs an audit line without the secret or its hash', async () => {
    const { apiKey, secret } = await createApiKey(keys.deps, buildKeyInput({ ownerUserId: 4242 }));
    expect(logs).toContainEqual(
      expect.objectContaining({ audit: 'api_key.created', keyId: apiKey.id, userId: 4242, scopes: ['read:devices'] }),
    );
    expect(logText()).not.toContain(secret);
    expect(logText()).not.toContain(apiKey.secretHash);
  });
});

describe('changeApiKey and revokeApiKey', () => {
  it('change the scopes, bump the version and rewrite the cache entry before returning', async () => {
    const { apiKey } = await createApiKey(keys.deps, buildKeyInput({ scopes: ['read:devices'] }));
    const changed = await changeApiKey(keys.deps, apiKey.id, { scopes: ['auth:login', 'write:devices'], name: 'renamed' });
    expect(changed).toMatchObject({ version: 2, scopes: ['auth:login', 'write:devices'], name: 'renamed' });
    expect(await findRow(keys.db, apiKey.key)).toMatchObject({ version: 2, scopes: ['auth:login', 'write:devices'], name: 'renamed' });
    expect(await keys.cached(apiKey.key)).toMatchObject({
      version: 2,
      record: { id: apiKey.id, scopes: ['auth:login', 'write:devices'], revoked: false },
    });
    expect(logs).toContainEqual(
      expect.objectContaining({ audit: 'api_key.changed', keyId: apiKey.id, scopes: ['auth:login', 'write:devices'] }),
    );
  });

  it('revoke keeps the record, bumps the version and writes revoked=true through', async () => {
    const { apiKey } = await createApiKey(keys.deps, buildKeyInput());
    await changeApiKey(keys.deps, apiKey.id, { scopes: ['auth:login'] });
    const revoked = await revokeApiKey(keys.deps, apiKey.id);
    expect(revoked.version).toBe(3);
    expect(revoked.revokedAt).toBeInstanceOf(Date);
    const row = await findRow(keys.db, apiKey.key);
    expect(row).toMatchObject({ version: 3, scopes: ['auth:login'] });
    expect(row!.revoked_at).toEqual(revoked.revokedAt);
    expect(await keys.cached(apiKey.key)).toMatchObject({ version: 3, record: { revoked: true, scopes: ['auth:login'] } });
    expect(logs).toContainEqual(expect.objectContaining({ audit: 'api_key.revoked', keyId: apiKey.id }));
  });

  it('revoking twice keeps the first revocation time and still moves the version on', async () => {
    const { apiKey } = await createApiKey(keys.deps, buildKeyInput());
    const first = await revokeApiKey(keys.deps, apiKey.id);
    const second = await revokeApiKey(keys.deps, apiKey.id);
    expect(second.revokedAt).toEqual(first.revokedAt);
    expect(second.version).toBe(first.version + 1);
    expect(await keys.cached(apiKey.key)).toMatchObject({ version: second.version, record: { revoked: true } });
  });

  it('answer an unknown id with not_found and touch no cache entry', async () => {
    const missingId = '00000000-0000-4000-8000-000000000000';
    await expect(changeApiKey(keys.deps, missingId, { scopes: ['auth:login'] })).rejects.toMatchObject({ kind: 'not_found' });
    await expect(revokeApiKey(keys.deps, missingId)).rejects.toBeInstanceOf(AppError);
    expect(await keys.redis.keys(`${keys.prefix}*${missingId}*`)).toEqual([]);
  });
});

describe('versioned cache entries', () => {
  it('refuse a stale refill: an older version cannot overwrite a newer write-through', async () => {
    const { apiKey } = await createApiKey(keys.deps, buildKeyInput({ scopes: ['read:devices'] }));
    const staleRecord = JSON.stringify({
      id: apiKey.id,
      secretHash: apiKey.secretHash,
      scopes: ['read:devices'],
      ownerUserId: apiKey.ownerUserId,
      revoked: false,
    });
    await revokeApiKey(keys.deps, apiKey.id);
    const written = await keys.cache.setIfNewer(apiKeyCacheKey(apiKey.key), 1, staleRecord, 3600);
    expect(written).toBe(false);
    expect(await keys.cached(apiKey.key)).toMatchObject({ version: 2, record: { revoked: true } });
    // The same version is refused too: only a strictly newer one replaces an entry.
    expect(await keys.cache.setIfNewer(apiKeyCacheKey(apiKey.key), 2, staleRecord, 3600)).toBe(false);
    expect(await keys.cached(apiKey.key)).toMatchObject({ version: 2, record: { revoked: true } });
  });

  it('a change replaces an entry that claims a version the database never had (restored backup, lost rollback)', async () => {
    const { apiKey } = await createApiKey(keys.deps, buildKeyInput());
    const bogus = JSON.stringify({
      id: apiKey.id,
      secretHash: apiKey.secretHash,
      scopes: ['system:full-access'],
      ownerUserId: apiKey.ownerUserId,
      revoked: false,
    });
    await keys.cache.del(apiKeyCacheKey(apiKey.key));
    expect(await keys.cache.setIfNewer(apiKeyCacheKey(apiKey.key), 99, bogus, 3600)).toBe(true);
    const revoked = await revokeApiKey(keys.deps, apiKey.id);
    expect(await keys.cached(apiKey.key)).toMatchObject({ version: revoked.version, record: { revoked: true, scopes: ['read:devices'] } });
    expect(logs).toContainEqual(expect.objectContaining({ level: 'warn', keyId: apiKey.id, msg: expect.stringContaining('replacing it') }));
  });
});

describe('ensureSystemKey', () => {
  let fresh: KeysHarness;

  beforeAll(async () => {
    fresh = await startKeys();
  });

  afterAll(async () => {
    await fresh?.stop();
  });

  it('creates one system:full-access key on the first call and returns null afterwards', async () => {
    const created = await ensureSystemKey(fresh.deps);
    expect(created).not.toBeNull();
    expect(created!.key).toMatch(/^acs_live_[A-Za-z0-9]{24}$/);
    const row = await findRow(fresh.db, created!.key);
    expect(row).toMatchObject({ scopes: [SYSTEM_SCOPE], owner_user_id: null, revoked_at: null });
    expect(row!.secret_hash).toBe(sha256(created!.secret));
    expect(await fresh.cached(created!.key)).toMatchObject({
      version: 1,
      record: { scopes: [SYSTEM_SCOPE], ownerUserId: null, revoked: false },
    });

    expect(await ensureSystemKey(fresh.deps)).toBeNull();
    expect(await ensureSystemKey(fresh.deps)).toBeNull();
    const { rows } = await fresh.db.query<{ n: number }>('SELECT count(*) AS n FROM api_keys WHERE $1 = ANY(scopes)', [SYSTEM_SCOPE]);
    expect(rows[0]!.n).toBe(1);
  });

  it('is not satisfied by a user-owned or a revoked key with the scope', async () => {
    const other = await startKeys();
    try {
      await createApiKey(other.deps, buildKeyInput({ scopes: [SYSTEM_SCOPE], ownerUserId: 7 }));
      const revoked = await createApiKey(other.deps, buildKeyInput({ scopes: [SYSTEM_SCOPE], ownerUserId: null }));
      await revokeApiKey(other.deps, revoked.apiKey.id);
      const created = await ensureSystemKey(other.deps);
      expect(created).not.toBeNull();
      expect(await ensureSystemKey(other.deps)).toBeNull();
    } finally {
      await other.stop();
    }
  });
});

describe('probes', () => {
  it('/readyz reports database, migrations and cache ready', async () => {
    const response = await fetch(`${keys.url}/readyz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ready: true, checks: { database: 'ok', migrations: 'ok', cache: 'ok' } });
  });
});
