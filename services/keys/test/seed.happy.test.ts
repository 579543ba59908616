import { describe, it, expect, afterEach } from '@jest/globals';
import { SYSTEM_SCOPE } from '@acs/auth';
import { revokeApiKey } from '../src/index.js';
import { REVOKED_SEED_MESSAGE, ROLLED_SEED_MESSAGE, rollKey } from '../src/domain/operator-keys.js';
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
    expect(row).toMatchObject({
      key,
      scopes: [SYSTEM_SCOPE],
      owner_user_id: null,
      environment: 'test',
      name: 'seed key',
      revoked_at: null,
      version: 1,
    });
    expect(row!.secret_hash).toBe(sha256(secret));
    expect(await tableText(keys.db)).not.toContain(secret);
    expect(await keys.cached(key)).toMatchObject({
      version: 1,
      record: { id: row!.id, secretHash: sha256(secret), scopes: [SYSTEM_SCOPE], revoked: false },
    });
    expect(lines).toContainEqual(expect.objectContaining({ audit: 'api_key.seeded', keyId: row!.id }));
    expect(text()).not.toContain(secret);
  });

  it('on a later start rotates the secret and replaces the scopes and name of the same key', async () => {
    const key = unknownKey();
    const first = newSecret();
    keys = await startKeys({ env: { SEED_API_KEY: key, SEED_API_SECRET: first, SEED_API_SCOPES: 'system:full-access' } });
    const original = (await findRow(keys.db, key))!;

    const second = newSecret();
    await keys.restart({
      SEED_API_KEY: key,
      SEED_API_SECRET: second,
      SEED_API_SCOPES: 'read:devices  auth:login read:devices',
      SEED_API_NAME: 'ops key',
    });
    const row = (await findRow(keys.db, key))!;
    expect(row).toMatchObject({
      id: original.id,
      scopes: ['read:devices', 'auth:login'],
      name: 'ops key',
      revoked_at: null,
      version: 2,
      environment: 'live',
    });
    expect(row.secret_hash).toBe(sha256(second));
    expect(await keys.cached(key)).toMatchObject({
      version: 2,
      record: { id: original.id, secretHash: sha256(second), scopes: ['read:devices', 'auth:login'], revoked: false },
    });
    const { rows } = await keys.db.query<{ n: number }>('SELECT count(*) AS n FROM api_keys WHERE key = $1', [key]);
    expect(rows[0]!.n).toBe(1);
  });

  it('a revoked seed key stays revoked: the next start refuses, naming the variables to change, and changes nothing', async () => {
    const key = unknownKey();
    const secret = newSecret();
    keys = await startKeys({ env: { SEED_API_KEY: key, SEED_API_SECRET: secret } });
    const original = (await findRow(keys.db, key))!;
    await revokeApiKey(keys.deps, original.id);
    const revoked = (await findRow(keys.db, key))!;

    // Same seed, and a new secret for the same key: both refused (rotating the secret must not revive it either).
    for (const env of [
      { SEED_API_KEY: key, SEED_API_SECRET: secret },
      { SEED_API_KEY: key, SEED_API_SECRET: newSecret() },
    ]) {
      const refused = await keys.restart(env).then(
        () => null,
        (err: unknown) => err,
      );
      expect((refused as Error).message).toBe(REVOKED_SEED_MESSAGE);
      expect((refused as Error).message).toContain('SEED_API_KEY and SEED_API_SECRET');
    }
    expect(await keys.cached(key)).toMatchObject({ version: revoked.version, record: { revoked: true, secretHash: sha256(secret) } });

    // A new key in the variables starts; the revoked one is untouched beside it (same version, same hash).
    const replacement = unknownKey();
    await keys.restart({ SEED_API_KEY: replacement, SEED_API_SECRET: newSecret() });
    expect(await findRow(keys.db, replacement)).toMatchObject({ revoked_at: null, scopes: [SYSTEM_SCOPE] });
    expect(await findRow(keys.db, key)).toEqual(revoked);
  });

  it.each([
    ['with a grace period', 3600],
    ['with no grace (the old secret dropped at once)', 0],
  ])('a rolled seed key is not overwritten (%s): the next start refuses, naming the variables to rotate it with', async (_how, grace) => {
    const key = unknownKey();
    const secret = newSecret();
    keys = await startKeys({ env: { SEED_API_KEY: key, SEED_API_SECRET: secret } });
    const original = (await findRow(keys.db, key))!;
    const { secret: rolledSecret } = await rollKey(keys.deps, original.id, grace);
    const rolled = (await findRow(keys.db, key))!;

    // The seed's secret is the one the roll replaced: putting it back would undo the roll.
    const refused = await keys.restart({ SEED_API_KEY: key, SEED_API_SECRET: secret }).then(
      () => null,
      (err: unknown) => err,
    );
    expect((refused as Error).message).toBe(ROLLED_SEED_MESSAGE);
    expect((refused as Error).message).toContain('SEED_API_SECRET');
    expect(rolled.secret_hash).toBe(sha256(rolledSecret));

    // Rotating through the variables (a new key and secret) starts; the rolled key kept its new secret.
    const replacement = unknownKey();
    await keys.restart({ SEED_API_KEY: replacement, SEED_API_SECRET: newSecret() });
    expect(await findRow(keys.db, replacement)).toMatchObject({ revoked_at: null });
    expect(await findRow(keys.db, key)).toEqual(rolled);
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
