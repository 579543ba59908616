import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { testServerUrl, uniqueName } from '@acs/testing';
import { ROOT } from './components.js';

/*
 * Issue 14.13: in docker-compose each service connects as its own role, owning its own database
 * only. The init script runs here for real against the test server (under a unique prefix).
 */
const SERVICES = ['keys', 'identity', 'catalog', 'device', 'billing', 'webhooks'] as const;
const server = new URL(testServerUrl('DATABASE_URL'));
const prefix = `${uniqueName('roles')}_`.toLowerCase();
const passwords = Object.fromEntries(SERVICES.map((s) => [s, `${s}0123456789abcdef`]));

function runScript(): void {
  execFileSync('sh', [fileURLToPath(new URL('deploy/postgres/service-roles.sh', ROOT))], {
    env: {
      ...process.env,
      PGHOST: server.hostname,
      PGPORT: server.port || '5432',
      PGPASSWORD: decodeURIComponent(server.password),
      POSTGRES_USER: decodeURIComponent(server.username) || 'postgres',
      SERVICE_DATABASE_PREFIX: prefix,
      ...Object.fromEntries(SERVICES.map((s) => [`${s.toUpperCase()}_DB_PASSWORD`, passwords[s]])),
    },
    stdio: 'pipe',
  });
}

async function asRole(service: string, database: string, sql: string): Promise<unknown[]> {
  const url = new URL(server);
  url.username = `${prefix}${service}`;
  url.password = passwords[service]!;
  url.pathname = `/${database}`;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

afterAll(async () => {
  const admin = new pg.Client({ connectionString: server.toString() });
  await admin.connect();
  for (const s of SERVICES) {
    await admin.query(`DROP DATABASE IF EXISTS "${prefix}${s}" WITH (FORCE)`);
    await admin.query(`DROP ROLE IF EXISTS "${prefix}${s}"`);
  }
  await admin.end();
});

describe('deploy/postgres/service-roles.sh', () => {
  it('makes one unprivileged role per service that owns its database, and runs again without harm', async () => {
    runScript();
    runScript();
    for (const s of SERVICES) {
      const [me] = (await asRole(
        s,
        `${prefix}${s}`,
        'SELECT current_user AS name, (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) AS superuser, (SELECT rolcreatedb FROM pg_roles WHERE rolname = current_user) AS createdb',
      )) as { name: string; superuser: boolean; createdb: boolean }[];
      expect(me).toEqual({ name: `${prefix}${s}`, superuser: false, createdb: false });
      // It can run its migrations: create a table in its own database.
      await asRole(s, `${prefix}${s}`, 'CREATE TABLE IF NOT EXISTS probe (id int)');
    }
  });

  it("a service's role cannot connect to another service's database", async () => {
    await expect(asRole('catalog', `${prefix}keys`, 'SELECT 1')).rejects.toThrow(/permission denied/);
    await expect(asRole('keys', `${prefix}identity`, 'SELECT 1')).rejects.toThrow(/permission denied/);
  });
});
