import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { REDIS_URL, closedRedisUrl, findRow, registered, startIdentity, type IdentityHarness } from './harness.js';
import { buildCli, runCli } from './cli-harness.js';

let identity: IdentityHarness;
let env: Record<string, string>;

beforeAll(async () => {
  await buildCli();
  identity = await startIdentity();
  env = { IDENTITY_DATABASE_URL: identity.database.url, REDIS_URL, REDIS_PREFIX: identity.prefix };
}, 180_000);

afterAll(async () => {
  await identity?.stop();
});

describe('users CLI refuses bad input with exit code 1 and a clear message', () => {
  it.each<[string, string[], RegExp]>([
    [
      'an unknown role',
      ['set-role', '--email', 'a@example.test', '--role', 'owner'],
      /^Unknown role "owner": expected one of free, subscriber, admin, superadmin$/m,
    ],
    ['a numeric role', ['set-role', '--email', 'a@example.test', '--role', '2'], /^Unknown role "2"/m],
    ['no role', ['set-role', '--email', 'a@example.test'], /^set-role needs --role free\|subscriber\|admin\|superadmin$/m],
    ['no e-mail', ['set-role', '--role', 'admin'], /^set-role needs --email EMAIL$/m],
    ['an unknown command', ['delete', '--email', 'a@example.test'], /^Unknown command "delete"\. Run with --help\.$/m],
    [
      'an extra argument',
      ['set-role', 'admin', '--email', 'a@example.test', '--role', 'admin'],
      /^Unexpected argument "admin"\. Run with --help\.$/m,
    ],
    [
      'an unknown option',
      ['set-role', '--email', 'a@example.test', '--role', 'admin', '--force'],
      /Unknown option '--force'.*Run with --help\./,
    ],
    [
      'an unknown user',
      ['set-role', '--email', 'nobody-at-all@example.test', '--role', 'admin'],
      /^No user with the e-mail address nobody-at-all@example.test$/m,
    ],
  ])('%s', async (_what, args, message) => {
    const result = await runCli(args, env);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('a bad environment variable names the variable', async () => {
    const result = await runCli(['set-role', '--email', 'a@example.test', '--role', 'admin'], { ...env, REDIS_URL: 'http://nope' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('REDIS_URL');
  });

  it('a role change fails and changes nothing when Redis is unreachable', async () => {
    const { body } = await registered(identity);
    const result = await runCli(['set-role', '--email', body.email, '--role', 'admin'], { ...env, REDIS_URL: await closedRedisUrl() });
    expect(result.code).toBe(1);
    expect(await findRow(identity.db, body.email)).toMatchObject({ account_role: 0, version: 1 });
  });

  it('warns that the change reaches no running gateway when there is a database but no REDIS_URL', async () => {
    const { body } = await registered(identity);
    const result = await runCli(['set-role', '--email', body.email, '--role', 'admin'], { IDENTITY_DATABASE_URL: identity.database.url });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/REDIS_URL is not set/);
    expect(await findRow(identity.db, body.email)).toMatchObject({ account_role: 2 });
  });
});

describe('the embedded-mode guard', () => {
  let dataDir: string;
  let sleeper: ChildProcess | undefined;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'users-cli-guard-'));
  });

  afterAll(async () => {
    if (sleeper?.pid !== undefined && sleeper.exitCode === null) sleeper.kill('SIGTERM');
    await rm(dataDir, { recursive: true, force: true });
  });

  it('refuses to open a data folder a running system holds when its socket cannot be reached, naming its pid', async () => {
    sleeper = spawn('sleep', ['60'], { stdio: 'ignore' });
    await writeFile(join(dataDir, 'system.pid'), String(sleeper.pid));
    const result = await runCli(['set-role', '--email', 'a@example.test', '--role', 'admin'], { DATA_DIR: dataDir });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`The embedded system (pid ${sleeper.pid}) is using ${dataDir}`);
    expect(await readdir(dataDir)).toEqual(['system.pid']);
  });

  it('works on the embedded database once the system is stopped', async () => {
    sleeper?.kill('SIGTERM');
    await new Promise((resolve) =>
      sleeper!.exitCode !== null || sleeper!.signalCode !== null ? resolve(null) : sleeper!.once('exit', resolve),
    );
    const result = await runCli(['set-role', '--email', 'a@example.test', '--role', 'admin'], { DATA_DIR: dataDir });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('No user with the e-mail address a@example.test');
    expect(await readdir(dataDir)).toContain('pglite');
  }, 60_000);
});
