import pg from 'pg';
import type { Logger } from '@acs/logger';
import { sqlStateOf } from '../sql-errors.js';
import { databaseNameOf, quoteIdentifier, redactUrl, withDatabase } from './connection-url.js';

const MAINTENANCE_DATABASE = 'postgres';
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * Creates the URL's database when it does not exist, so a fresh server needs no manual step.
 * Connects to the target first: when it exists (the usual case) no extra privilege is needed.
 */
export async function ensureDatabase(url: string, logger: Logger): Promise<void> {
  const name = databaseNameOf(url);
  try {
    await withClient(url, async () => {});
    return;
  } catch (err) {
    // 3D000 invalid_catalog_name: "database ... does not exist". Anything else is a real failure.
    if (sqlStateOf(err) !== '3D000' || !name) {
      throw new Error(`Cannot connect to PostgreSQL at ${redactUrl(url)}: ${(err as Error).message}`, { cause: err });
    }
  }
  await withClient(withDatabase(url, MAINTENANCE_DATABASE), async (client) => {
    try {
      await client.query(`CREATE DATABASE ${quoteIdentifier(name)}`);
      logger.info({ database: name }, 'created database');
    } catch (err) {
      // Another replica created it between our probe and now: 42P04 duplicate_database, or
      // 23505 when both inserts reach pg_database's unique index at the same moment.
      const code = sqlStateOf(err);
      if (code !== '42P04' && code !== '23505') throw err;
      logger.info({ database: name }, 'database was created concurrently by another process');
    }
  });
}

async function withClient(url: string, fn: (client: pg.Client) => Promise<void>): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  // Failures of the awaited calls reject them; this only keeps a late socket error from crashing.
  client.on('error', () => {});
  await client.connect();
  try {
    await fn(client);
  } finally {
    await client.end().catch(() => {});
  }
}
