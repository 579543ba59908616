import type { Db, OpenDatabaseOptions } from './db.js';
import { openPglite } from './pglite/pglite-db.js';
import { openPostgres } from './postgres/postgres-db.js';

const DEFAULT_POOL_SIZE = 10;

/**
 * PostgreSQL when a URL is given (its database is created if missing), otherwise embedded PGlite,
 * persistent in `dataDir` or in memory. The same SQL and the same row shapes on both.
 */
export async function openDatabase(options: OpenDatabaseOptions): Promise<Db> {
  const { url, dataDir, logger, poolSize = DEFAULT_POOL_SIZE, waitMs = 0 } = options;
  // An empty DATABASE_URL= in an env file means "not set", not "connect to localhost".
  if (url !== undefined && url.length > 0) return openPostgres(url, logger, poolSize, waitMs);
  return openPglite(dataDir, logger);
}
