import { describe, it, expect, afterEach } from '@jest/globals';
import { SYSTEM_SCOPE } from '@acs/auth';
import { revokeApiKey } from '../src/index.js';
import { captureLogger, findRow, newSecret, sha256, startKeys, tableText, unknownKey, type KeysHarness } from './harness.js';

let keys: KeysHarness | undefined;

afterEach(async () => {
  await keys?.stop();
  keys = undefined;
});

describe('SEED_API_KEY at start', () => {
  it('creates that exact key as a system key, stores only the hash and writes it through', async () => {
    const key = unknownKey('acs', 'test');
    const secret = newSecret();
    const { logger, lines, text } = captureLogger();
    keys = await startKeys({ logger, env: { SEED_API_KEY: key, SEED_API_SECRET: secret } });
    const row = await findRow(keys.db, key);
    expect(row).toMatchObject({ key, scopes: [SYSTEM_SCOPE], owner_user_id: null, environment: 'test', name: 'seed key', revoked_at: null, version: 1 });
    expect(row!.secret_hash).toBe(sha256(secret));
    expect(await tableText(keys.db)).not.toContain(secret);
    expect(await keys.cached(key)).toMatchObject({ version: 1, record: { id: row!.id, secretHash: sha256(secret), scopes: [SYSTEM_SCOPE], revoked: false } });
    expect(lines).toContainEqual(expect.objectContaining({ audit: 'api_key.seeded', keyId: row!.id }));
    expect(text()).not.toContain(secret);
  });

  it('on a later start rotates the secret, replaces the scopes and name, and un-revokes the key', async () => {
    const key = unknownKey();
    const first = newSecret();
    keys = await startKeys({ env: { SEED_API_KEY: key, SEED_API_SECRET: first, SEED_API_SCOPES: 'system:full-access' } });
    const original = (await findRow(keys.db, key))!;
    await revokeApiKey(keys.deps, original.id);
    expect(await keys.cached(key)).toMatchObject({ version: 2, record: { revoked: true } });

    const second = newSecret();
    await keys.restart({ SEED_API_KEY: key, SEED_API_SECRET: second, SEED_API_SCOPES: 'read:devices  auth:login read:devices', SEED_API_NAME: 'ops key' });
    const row = (await findRow(keys.db, key))!;
    expect(row).toMatchObject({ id: original.id, scopes: ['read:devices', 'auth:login'], name: 'ops key', revoked_at: null, version: 3, environment: 'live' });
    expect(row.secret_hash).toBe(sha256(second));
    expect(await keys.cached(key)).toMatchObject({ version: 3, record: { id: original.id, secretHash: sha256(second), scopes: ['read:devices', 'auth:login'], revoked: false } });
    const { rows } = await keys.db.query<{ n: number }>('SELECT count(*) AS n FROM api_keys WHERE key = $1', [key]);
    expect(rows[0]!.n).toBe(1);
  });

  it('a restart with the same seed keeps one row and serves the same record', async () => {
    const key = unknownKey();
    const secret = newSecret();
    keys = await startKeys({ env: { SEED_API_KEY: key, SEED_API_SECRET: secret } });
    await keys.restart();
    const response = await keys.lookup({ key });
    expect(await response.json()).toMatchObject({ record: { secretHash: sha256(secret), revoked: false } });
    const { rows } = await keys.db.query<{ n: number }>('SELECT count(*) AS n FROM api_keys');
    expect(rows[0]!.n).toBe(1);
  });
});
