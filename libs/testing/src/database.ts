import pg from 'pg';
import { testServerUrl, uniqueName } from './environment.js';

export interface TestDatabase {
  /** Connection URL of the new, empty database. */
  url: string;
  /** Drops it, closing any connection still open to it; safe to call twice. */
  drop(): Promise<void>;
}

/**
 * A fresh database on the test server (DATABASE_URL), so each test owns its rows and schema.
 * An unreachable server throws: the test fails, it never skips.
 */
export async function createTestDatabase(prefix = 'test'): Promise<TestDatabase> {
  const serverUrl = testServerUrl('DATABASE_URL');
  // Lower-case letters, digits and _ only, short enough for PostgreSQL's 63-byte identifiers.
  const name = uniqueName(
    prefix
      .toLowerCase()
      .replace(/[^a-z0-9_]/g, '_')
      .slice(0, 40),
  );
  await onServer(serverUrl, `CREATE DATABASE "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => onServer(serverUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
  };
}

async function onServer(serverUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 5_000 });
  client.on('error', () => {}); // failures surface through the awaited calls below
  try {
    await client.connect();
  } catch (err) {
    const where = new URL(serverUrl);
    where.password = '';
    throw new Error(`Test PostgreSQL is unreachable at ${where.toString()} (set DATABASE_URL): ${(err as Error).message}`, { cause: err });
  }
  try {
    await client.query(sql);
  } finally {
    await client.end().catch(() => {});
  }
}
