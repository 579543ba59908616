import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { openDatabase, type Db } from '@acs/db';
import { createTestDatabase, uniqueName, type TestDatabase } from '@acs/testing';
import { REDIS_URL, closedRedisUrl, deleteKeysWithPrefix, rawRedis, silentLogger } from './harness.js';
import { buildCli, parseCreated, runCli } from './cli-harness.js';

let database: TestDatabase;
let db: Db;
const prefix = `${uniqueName('keys_cli_err')}:`;
let env: Record<string, string>;

beforeAll(async () => {
  await buildCli();
  database = await createTestDatabase('keys_cli_err');
  env = { KEYS_DATABASE_URL: database.url, REDIS_URL, REDIS_PREFIX: prefix };
  // The first run migrates the database; the test reads it directly afterwards.
  expect((await runCli(['list'], env)).code).toBe(0);
  db = await openDatabase({ url: database.url, logger: silentLogger(), poolSize: 1 });
}, 180_000);

afterAll(async () => {
  await db?.close();
  const redis = rawRedis();
  await deleteKeysWithPrefix(redis, prefix).finally(() => redis.disconnect());
  await database?.drop();
});

async function keyCount(): Promise<number> {
  const { rows } = await db.query<{ n: number }>('SELECT count(*) AS n FROM api_keys');
  return rows[0]!.n;
}

async function versions(): Promise<string> {
  const { rows } = await db.query<{ v: string }>(
    "SELECT coalesce(string_agg(id || ':' || version, ',' ORDER BY id), '') AS v FROM api_keys",
  );
  return rows[0]!.v;
}

describe('keys CLI refuses bad input with exit code 1 and a clear message', () => {
  it.each<[string, string[], RegExp]>([
    [
      'an unknown scope',
      ['create', '--scopes', 'read:devices foo:bar'],
      /^Unknown scope\(s\): foo:bar\. Known scopes: auth:login, .*system:full-access$/m,
    ],
    ['an unknown command', ['rotate', 'x'], /^Unknown command "rotate"\. Run with --help\.$/m],
    ['create without --scopes', ['create', '--name', 'x'], /^create needs --scopes "<scope> <scope>"$/m],
    ['set-scopes without --scopes', ['set-scopes', '00000000-0000-4000-8000-000000000000'], /^set-scopes needs --scopes/m],
    ['empty --scopes', ['create', '--scopes', '  '], /At least one scope is required/],
    ['an unknown option', ['create', '--scopes', 'read:devices', '--color', 'red'], /Unknown option '--color'.*Run with --help\./],
    ['an unknown environment', ['create', '--scopes', 'read:devices', '--env', 'prod'], /^--env must be live or test$/m],
    ['an owner that is no user id', ['create', '--scopes', 'read:devices', '--owner', 'bob'], /^--owner must be a user id$/m],
    ['an empty owner', ['create', '--scopes', 'read:devices', '--owner', ''], /^--owner must be a user id$/m],
    ['a negative owner', ['create', '--scopes', 'read:devices', '--owner=-5'], /^--owner must be a user id$/m],
    ['an owner in exponent form', ['create', '--scopes', 'read:devices', '--owner', '1e3'], /^--owner must be a user id$/m],
    ['revoke without a key', ['revoke'], /^Name the key: its id or the key itself$/m],
    [
      'set-scopes on an unknown id',
      ['set-scopes', '00000000-0000-4000-8000-000000000000', '--scopes', 'read:devices'],
      /^No API key 00000000-0000-4000-8000-000000000000$/m,
    ],
    ['revoke of an unknown key', ['revoke', 'acs_live_ABCDEFGHIJKLMNOPQRSTUVWX'], /^No API key acs_live_ABCDEFGHIJKLMNOPQRSTUVWX$/m],
    ['revoke of something that is neither id nor key', ['revoke', 'hello'], /^No API key hello$/m],
  ])('%s', async (_what, args, message) => {
    const before = await versions();
    const result = await runCli(args, env);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.stdout).not.toContain('X-Api-Secret');
    expect(await versions()).toBe(before);
  });

  it('a bad environment variable names the variable', async () => {
    const result = await runCli(['list'], { ...env, KEY_PREFIX: 'Bad_Prefix' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('KEY_PREFIX');
  });

  it('a create fails without leaving a row when Redis is unreachable', async () => {
    const before = await keyCount();
    const result = await runCli(['create', '--scopes', 'read:devices'], { ...env, REDIS_URL: await closedRedisUrl() });
    expect(result.code).toBe(1);
    expect(result.stdout).not.toContain('X-Api-Secret');
    expect(await keyCount()).toBe(before);
  });

  it('warns that a change reaches no running gateway when there is a database but no REDIS_URL', async () => {
    const created = await runCli(['create', '--scopes', 'read:devices'], env);
    const { key } = parseCreated(created.stdout);
    const result = await runCli(['revoke', key], { KEYS_DATABASE_URL: database.url });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/REDIS_URL is not set/);
  });
});

describe('the embedded-mode guard', () => {
  let dataDir: string;
  let sleeper: ChildProcess | undefined;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'keys-cli-guard-'));
  });

  afterAll(async () => {
    if (sleeper?.pid !== undefined && sleeper.exitCode === null) sleeper.kill('SIGTERM');
    await rm(dataDir, { recursive: true, force: true });
  });

  it('refuses to open a data folder a running system holds when its socket cannot be reached, naming its pid', async () => {
    sleeper = spawn('sleep', ['60'], { stdio: 'ignore' });
    const pid = sleeper.pid!;
    await writeFile(join(dataDir, 'system.pid'), String(pid));
    for (const args of [['list'], ['create', '--scopes', 'read:devices'], ['revoke', 'acs_live_ABCDEFGHIJKLMNOPQRSTUVWX']]) {
      const result = await runCli(args, { DATA_DIR: dataDir });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`The embedded system (pid ${pid}) is using ${dataDir}`);
    }
    // Nothing was opened: PGlite would have made its keys folder.
    expect(await readdir(dataDir)).toEqual(['system.pid']);
  });

  it('is not fooled by a stale pid file, nor needed when a database URL is given', async () => {
    sleeper?.kill('SIGTERM');
    await new Promise((resolve) =>
      sleeper!.exitCode !== null || sleeper!.signalCode !== null ? resolve(null) : sleeper!.once('exit', resolve),
    );
    const stale = await runCli(['list'], { DATA_DIR: dataDir });
    expect(stale).toMatchObject({ code: 0 });
    expect(stale.stdout).toContain('No API keys.');

    const held = spawn('sleep', ['60'], { stdio: 'ignore' });
    try {
      await writeFile(join(dataDir, 'system.pid'), String(held.pid));
      const withUrl = await runCli(['list'], { ...env, DATA_DIR: dataDir });
      expect(withUrl.code).toBe(0);
    } finally {
      held.kill('SIGTERM');
    }
  }, 60_000);
});
