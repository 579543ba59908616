import pg from 'pg';
import type { Logger } from '@acs/logger';
import { isDependencyUnavailable } from '@acs/errors';
import { sqlStateOf } from '../sql-errors.js';
import { markIfConnectionLost } from './connection-loss.js';
import { databaseNameOf, quoteIdentifier, redactUrl, withDatabase } from './connection-url.js';

const MAINTENANCE_DATABASE = 'postgres';
const CONNECT_TIMEOUT_MS = 10_000;
const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 5_000;

/**
 * Whether a failed connect means "PostgreSQL is not there yet" (worth waiting for), not a wrong password, role or
 * database: the platform's one test of an unavailable store (@acs/errors: socket failures, SQLSTATE class 08,
 * 57P01-57P03 starting up or shutting down, 53300 too many connections), after pg's own code-less connection
 * failures are marked (connection-loss.ts).
 */
export const isUnreachable = (err: unknown): boolean => isDependencyUnavailable(markIfConnectionLost(err));

/**
 * Creates the URL's database when it does not exist, so a fresh server needs no manual step.
 * Connects to the target first: when it exists (the usual case) no extra privilege is needed.
 * `waitMs`: how long a start-up waits for a PostgreSQL that is not reachable yet (a pod started during a
 * failover, a server still starting), retrying with a growing pause and saying so; 0 fails at once (the CLIs).
 */
export async function ensureDatabase(url: string, logger: Logger, waitMs = 0): Promise<void> {
  const name = databaseNameOf(url);
  try {
    await connectWithin(url, logger, waitMs);
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

/** One connect to the target, retried while PostgreSQL is unreachable and `waitMs` has not run out. */
async function connectWithin(url: string, logger: Logger, waitMs: number): Promise<void> {
  const deadline = Date.now() + waitMs;
  for (let pause = FIRST_RETRY_MS; ; pause = Math.min(pause * 2, MAX_RETRY_MS)) {
    try {
      await withClient(url, async () => {});
      return;
    } catch (err) {
      const left = deadline - Date.now();
      if (!isUnreachable(err) || left <= 0) throw err;
      logger.warn(
        { database: redactUrl(url), reason: (err as Error).message, secondsLeft: Math.ceil(left / 1000) },
        'PostgreSQL is not reachable yet; waiting for it (DATABASE_WAIT_SECONDS)',
      );
      await new Promise((resolve) => setTimeout(resolve, Math.min(pause, left)));
    }
  }
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
