import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { buildCli, runCli } from './cli-harness.js';
import { REDIS_URL, findRow, registered, startIdentity, type IdentityHarness } from './harness.js';

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

describe('users CLI', () => {
  it('--help exits 0 and explains set-role, the roles and the environment', async () => {
    for (const args of [['--help'], ['-h'], [], ['set-role', '--help']]) {
      const result = await runCli(args, {});
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('set-role --email EMAIL --role free|subscriber|admin|superadmin');
      expect(result.stdout).toContain('IDENTITY_DATABASE_URL');
      expect(result.stdout).toContain('REDIS_URL');
    }
  });

  it('set-role admin changes the database and the cached authorization record', async () => {
    const { body, user } = await registered(identity);
    const result = await runCli(['set-role', '--email', body.email.toUpperCase(), '--role', 'admin'], env);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toBe(`User ${user.id} (${body.email}): account role admin (2); effective role now admin (2).\n`);
    expect(await findRow(identity.db, body.email)).toMatchObject({ account_role: 2, version: 2 });
    expect(await identity.cachedAuthz(user.id)).toMatchObject({ version: 2, record: { accountRole: 2 } });
  });

  it('set-role free during a trial says the effective role stays Subscriber', async () => {
    const { body, user } = await registered(identity);
    await runCli(['set-role', '--email', body.email, '--role', 'superadmin'], env);
    const result = await runCli(['set-role', '--email', body.email, '--role', 'FREE'], env);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('account role free (0); effective role now subscriber (1)');
    expect(await identity.cachedAuthz(user.id)).toMatchObject({ version: 3, record: { accountRole: 0 } });
  });

  it('derives <name>_identity from DATABASE_URL, as npm start does', async () => {
    const url = new URL(identity.database.url);
    // DATABASE_URL .../<db>_cli names the identity database <db>_cli_identity, which does not exist
    // yet: the CLI creates and migrates it, and then finds no such user.
    const result = await runCli(['set-role', '--email', 'nobody@example.test', '--role', 'admin'], {
      DATABASE_URL: `${identity.database.url}_cli`,
      REDIS_URL,
      REDIS_PREFIX: identity.prefix,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('No user with the e-mail address nobody@example.test');
    const { default: pg } = await import('pg');
    const admin = new pg.Client({ connectionString: identity.database.url });
    await admin.connect();
    try {
      const name = `${url.pathname.slice(1)}_cli_identity`;
      const { rows } = await admin.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_database WHERE datname = $1', [name]);
      expect(rows[0]!.n).toBe(1);
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    } finally {
      await admin.end();
    }
  });
});
