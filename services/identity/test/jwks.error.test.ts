import { chmod, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { createRedisCache, type Cache } from '@acs/cache';
import { createTestDatabase, deleteRedisKeys, uniqueName, type TestDatabase } from '@acs/testing';
import { identityConfigSchema, startIdentityService } from '../src/index.js';
import { INTERNAL_SECRET, REDIS_URL, connectionsTo, identityConfig, newSigningKey, silentLogger } from './harness.js';

let database: TestDatabase;
let cache: Cache;
let dataDir: string;
const prefix = `${uniqueName('identity_keys_err')}:`;

beforeAll(async () => {
  database = await createTestDatabase('identity_keys_err');
  cache = createRedisCache({ url: REDIS_URL, keyPrefix: prefix, logger: silentLogger() });
  dataDir = await mkdtemp(join(tmpdir(), 'identity-keys-err-'));
});

afterAll(async () => {
  await cache?.close();
  await deleteRedisKeys(prefix);
  await database?.drop();
  await rm(dataDir, { recursive: true, force: true });
});

function configProblems(env: Record<string, string>): { path: string; message: string }[] {
  const result = identityConfigSchema.safeParse({ INTERNAL_SECRET, ...env });
  expect(result.success).toBe(false);
  return result.error!.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
}

describe('bad signing keys in the configuration', () => {
  it('refuses a JWT_SIGNING_KEY that is not JSON, without echoing it', () => {
    const problems = configProblems({ JWT_SIGNING_KEY: 'secret-not-json' });
    expect(problems).toEqual([{ path: 'JWT_SIGNING_KEY', message: 'expected a private Ed25519 JWK with a kid as JSON' }]);
  });

  it('refuses a signing key without d or kid, or of another type', async () => {
    const { privateJwk, publicJwk } = await newSigningKey();
    expect(configProblems({ JWT_SIGNING_KEY: JSON.stringify(publicJwk) })).toContainEqual({
      path: 'JWT_SIGNING_KEY.d',
      message: 'expected d, the private part',
    });
    const { kid: _kid, ...noKid } = privateJwk;
    expect(configProblems({ JWT_SIGNING_KEY: JSON.stringify(noKid) })).toContainEqual({
      path: 'JWT_SIGNING_KEY.kid',
      message: 'expected a kid',
    });
    const problems = configProblems({ JWT_SIGNING_KEY: JSON.stringify({ ...privateJwk, kty: 'EC', crv: 'P-256' }) });
    expect(problems.map((p) => p.path)).toEqual(['JWT_SIGNING_KEY.kty', 'JWT_SIGNING_KEY.crv']);
    expect(JSON.stringify(problems)).not.toContain(String(privateJwk.d));
  });

  it('refuses a private key among JWT_VERIFICATION_KEYS', async () => {
    const { privateJwk } = await newSigningKey();
    expect(configProblems({ JWT_VERIFICATION_KEYS: JSON.stringify([privateJwk]) })).toEqual([
      { path: 'JWT_VERIFICATION_KEYS.0', message: 'expected a public key: remove "d" (the private part) from the verification keys' },
    ]);
    expect(configProblems({ JWT_VERIFICATION_KEYS: JSON.stringify({ keys: [] }) })[0]!.path).toBe('JWT_VERIFICATION_KEYS');
  });

  it('stops the start when x does not belong to d, before opening the database', async () => {
    const a = await newSigningKey('mixed');
    const b = await newSigningKey('other');
    const config = await identityConfig(database, prefix, { JWT_SIGNING_KEY: JSON.stringify({ ...a.privateJwk, x: b.publicJwk.x }) });
    await expect(startIdentityService(config, silentLogger(), cache)).rejects.toThrow(
      /^The JWT signing key mixed is unusable.*: its public part "x" must belong to its private part "d"$/,
    );
    expect(await connectionsTo(database)).toBe(0);
  });

  it('stops the start when a verification key reuses the current kid with another key', async () => {
    const current = await newSigningKey('same-kid');
    const other = await newSigningKey('same-kid');
    const config = await identityConfig(database, prefix, {
      JWT_SIGNING_KEY: current.env,
      JWT_VERIFICATION_KEYS: JSON.stringify([other.publicJwk]),
    });
    await expect(startIdentityService(config, silentLogger(), cache)).rejects.toThrow(
      'JWT_VERIFICATION_KEYS: two different keys have the kid "same-kid"',
    );
  });

  it('stops the start when the key file under DATA_DIR is not a key, and names the file', async () => {
    const dir = join(dataDir, 'broken', 'identity');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'jwt-signing-key.json'), '{"kty":"OKP"}', { mode: 0o600 });
    const config = await identityConfig(database, prefix, { JWT_SIGNING_KEY: '', DATA_DIR: join(dataDir, 'broken') });
    await expect(startIdentityService(config, silentLogger(), cache)).rejects.toThrow(
      /jwt-signing-key\.json does not hold a private Ed25519 JWK with a kid .*delete it to generate a new key/,
    );
  });

  it('tightens a key file readable by others to 0600', async () => {
    const dir = join(dataDir, 'loose', 'identity');
    await mkdir(dir, { recursive: true });
    const file = join(dir, 'jwt-signing-key.json');
    await writeFile(file, (await newSigningKey('loose')).env);
    await chmod(file, 0o644);
    const service = await startIdentityService(
      await identityConfig(database, prefix, { JWT_SIGNING_KEY: '', DATA_DIR: join(dataDir, 'loose') }),
      silentLogger(),
      cache,
    );
    try {
      expect(service.deps.signer.kid).toBe('loose');
      expect((await stat(file)).mode & 0o777).toBe(0o600);
    } finally {
      await service.close();
    }
  });
});

describe('other configuration values', () => {
  it.each<[string, string, string]>([
    ['BCRYPT_COST', '3', 'expected at least 4'],
    ['BCRYPT_COST', '15', 'expected at most 14'],
    ['TRIAL_DURATION_SECONDS', '-1', 'expected at least 0'],
    ['TRIAL_DURATION_SECONDS', 'soon', 'expected a whole number'],
    ['JWT_TTL_SECONDS', '10', 'expected at least 60'],
    ['LOGIN_MAX_FAILURES_PER_ACCOUNT', '0', 'expected at least 1'],
    ['LOGIN_MAX_FAILURES_PER_ACCOUNT_ADDRESS', '0', 'expected at least 1'],
    ['LOGIN_KNOWN_ADDRESS_DAYS', '0', 'expected at least 1'],
    ['REGISTRATION_MAX_PER_ADDRESS', 'many', 'expected a whole number'],
    ['SEED_ADMIN_EMAIL', 'admin', 'expected an e-mail address'],
  ])('%s=%s is refused: %s', (variable, value, message) => {
    expect(configProblems({ [variable]: value })).toEqual([{ path: variable, message }]);
  });

  it('has the documented defaults', () => {
    expect(identityConfigSchema.parse({ INTERNAL_SECRET })).toMatchObject({
      PORT: 8083,
      TRIAL_DURATION_SECONDS: 1_209_600,
      JWT_TTL_SECONDS: 3600,
      JWT_ISSUER: 'acs-identity',
      JWT_AUDIENCE: 'acs-api',
      BCRYPT_COST: 11,
      LOGIN_MAX_FAILURES_PER_ACCOUNT_ADDRESS: 5,
      LOGIN_MAX_FAILURES_PER_ACCOUNT: 50,
      LOGIN_MAX_FAILURES_PER_ADDRESS: 30,
      LOGIN_FAILURE_WINDOW_SECONDS: 900,
      LOGIN_KNOWN_ADDRESS_DAYS: 30,
      REGISTRATION_MAX_PER_ADDRESS: 20,
      REGISTRATION_WINDOW_SECONDS: 3600,
      REDIS_PREFIX: 'acs:',
    });
  });
});
