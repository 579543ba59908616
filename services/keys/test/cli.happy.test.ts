import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import type { Redis } from 'ioredis';
import { createTestDatabase, uniqueName, type TestDatabase } from '@acs/testing';
import type { Db } from '@acs/db';
import { migrate, openDatabase } from '@acs/db';
import { fileURLToPath } from 'node:url';
import { REDIS_URL, deleteKeysWithPrefix, rawRedis, sha256, silentLogger, type ApiKeyRow } from './harness.js';
import { buildCli, parseCreated, runCli } from './cli-harness.js';

let database: TestDatabase;
let db: Db;
let redis: Redis;
const prefix = `${uniqueName('keys_cli')}:`;
let env: Record<string, string>;

beforeAll(async () => {
  await buildCli();
  database = await createTestDatabase('keys_cli');
  env = { KEYS_DATABASE_URL: database.url, REDIS_URL, REDIS_PREFIX: prefix };
  redis = rawRedis();
  // Run once so the schema exists before the test's own connection reads it.
  expect((await runCli(['list'], env)).code).toBe(0);
  db = await openDatabase({ url: database.url, logger: silentLogger(), poolSize: 2 });
}, 180_000);

afterAll(async () => {
  await db?.close();
  if (redis) await deleteKeysWithPrefix(redis, prefix).finally(() => redis.disconnect());
  await database?.drop();
});

async function row(key: string): Promise<ApiKeyRow | undefined> {
  const { rows } = await db.query<ApiKeyRow>(
    'SELECT id, key, secret_hash, name, scopes, owner_user_id, environment, revoked_at, version FROM api_keys WHERE key = $1',
    [key],
  );
  return rows[0];
}

async function cached(key: string): Promise<{ version: number; record: Record<string, unknown> } | null> {
  const raw = await redis.get(`${prefix}apikey:{${key}}`);
  if (raw === null) return null;
  const bar = raw.indexOf('|');
  return { version: Number(raw.slice(0, bar)), record: JSON.parse(raw.slice(bar + 1)) as Record<string, unknown> };
}

async function create(args: string[]): Promise<{ id: string; key: string; secret: string; stdout: string }> {
  const result = await runCli(['create', ...args], env);
  expect(result).toMatchObject({ code: 0, stderr: '' });
  return { ...parseCreated(result.stdout), stdout: result.stdout };
}

describe('keys CLI', () => {
  it('--help exits 0 and lists the commands', async () => {
    for (const args of [['--help'], ['-h'], []]) {
      const result = await runCli(args, {});
      expect(result.code).toBe(0);
      for (const command of ['create', 'list', 'set-scopes', 'revoke']) expect(result.stdout).toContain(command);
      expect(result.stdout).toContain('KEYS_DATABASE_URL');
    }
  });

  it('create prints the key and the secret once, stores the hash and writes the cache', async () => {
    const name = uniqueName('cli key');
    const created = await create(['--scopes', 'read:devices auth:login', '--name', name, '--env', 'test']);
    expect(created.key).toMatch(/^acs_test_[A-Za-z0-9]{24}$/);
    expect(created.stdout.split(created.secret)).toHaveLength(2);
    expect(created.stdout).toContain('Scopes:       read:devices auth:login');
    expect(await row(created.key)).toMatchObject({
      id: created.id,
      name,
      scopes: ['read:devices', 'auth:login'],
      environment: 'test',
      owner_user_id: null,
      version: 1,
      secret_hash: sha256(created.secret),
    });
    expect(await cached(created.key)).toEqual({
      version: 1,
      record: {
        id: created.id,
        secretHash: sha256(created.secret),
        scopes: ['read:devices', 'auth:login'],
        ownerUserId: null,
        revoked: false,
      },
    });
  });

  it('create defaults to a live system key and accepts --owner', async () => {
    const created = await create(['--scopes', 'auth:login', '--owner', '77']);
    expect(created.key).toMatch(/^acs_live_/);
    expect(await row(created.key)).toMatchObject({ owner_user_id: 77, environment: 'live', name: 'created with the keys CLI' });
  });

  it('list shows the key, its scopes and state, never its secret or hash', async () => {
    const name = uniqueName('listed');
    const created = await create(['--scopes', 'register:device', '--name', name, '--owner', '555']);
    const all = await runCli(['list'], env);
    expect(all.code).toBe(0);
    const line = all.stdout.split('\n').find((l) => l.includes(created.key));
    expect(line).toBeDefined();
    expect(line).toContain(created.id);
    expect(line).toContain('[register:device]');
    expect(line).toContain('user 555');
    expect(line).toContain('active');
    expect(line).toContain(`"${name}"`);
    expect(all.stdout).not.toContain(created.secret);
    expect(all.stdout).not.toContain(sha256(created.secret));
    const mine = await runCli(['list', '--owner', '555'], env);
    expect(mine.stdout.trim().split('\n')).toHaveLength(1);
    const nobody = await runCli(['list', '--owner', '999999'], env);
    expect(nobody.stdout.trim()).toBe('No API keys.');
  });

  it("list names each owner by e-mail from identity's database, and says so when it cannot read it", async () => {
    const identity = await createTestDatabase('keys_cli_identity');
    const identityDb = await openDatabase({ url: identity.url, logger: silentLogger(), poolSize: 1 });
    try {
      // Identity's own schema, from its migrations (read as files: the keys package imports nothing of identity).
      await migrate(identityDb, fileURLToPath(new URL('../../identity/migrations', import.meta.url)), silentLogger());
      const email = `${uniqueName('owner')}@example.com`;
      const { rows } = await identityDb.query<{ id: string }>(
        "INSERT INTO users (email, password_hash, first_name, last_name) VALUES ($1, 'x', 'Ada', 'L') RETURNING id",
        [email],
      );
      const owner = rows[0]!.id;
      const created = await create(['--scopes', 'read:devices', '--owner', owner]);
      const named = await runCli(['list', '--owner', owner], { ...env, IDENTITY_DATABASE_URL: identity.url });
      expect(named).toMatchObject({ code: 0, stderr: '' });
      expect(named.stdout).toContain(`${created.key}`);
      expect(named.stdout).toContain(`user ${owner} <${email}>`);
      // No identity database named (KEYS_DATABASE_URL alone): ids only, and one line that says what to set.
      const unnamed = await runCli(['list', '--owner', owner], env);
      expect(unnamed.code).toBe(0);
      expect(unnamed.stdout).toContain(`user ${owner}  `);
      expect(unnamed.stdout).not.toContain(email);
      expect(unnamed.stderr).toMatch(/Owners are shown without e-mail: .*IDENTITY_DATABASE_URL/);
    } finally {
      await identityDb.close();
      await identity.drop();
    }
  });

  it('set-scopes <id> replaces the scopes in the database and the cache', async () => {
    const created = await create(['--scopes', 'read:devices auth:login']);
    const result = await runCli(['set-scopes', created.id, '--scopes', 'read:devices'], env);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('[read:devices]');
    expect(await row(created.key)).toMatchObject({ scopes: ['read:devices'], version: 2 });
    expect(await cached(created.key)).toMatchObject({ version: 2, record: { scopes: ['read:devices'], revoked: false } });
    const byKey = await runCli(['set-scopes', created.key, '--scopes', 'write:devices'], env);
    expect(byKey.code).toBe(0);
    expect(await cached(created.key)).toMatchObject({ version: 3, record: { scopes: ['write:devices'] } });
  });

  it('revoke <key> marks the key revoked in the database and the cache, and list shows it', async () => {
    const created = await create(['--scopes', 'read:devices']);
    const result = await runCli(['revoke', created.key], env);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/revoked \d{4}-/);
    const revoked = await row(created.key);
    expect(revoked!.revoked_at).toBeInstanceOf(Date);
    expect(revoked!.version).toBe(2);
    expect(await cached(created.key)).toMatchObject({ version: 2, record: { revoked: true } });
    const list = await runCli(['list'], env);
    expect(list.stdout.split('\n').find((l) => l.includes(created.key))).toMatch(/revoked \d{4}-/);
  });

  it('can create the system:full-access key that no API can', async () => {
    const created = await create(['--scopes', 'system:full-access']);
    expect(await row(created.key)).toMatchObject({ scopes: ['system:full-access'], owner_user_id: null });
  });
});
