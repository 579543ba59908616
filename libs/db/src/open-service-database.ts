import { join } from 'node:path';
import type { Logger } from '@acs/logger';
import type { Db } from './db.js';
import { migrate } from './migrations/migrate.js';
import { openDatabase } from './open-database.js';

export interface ServiceDatabaseOptions {
  /** The owning service; names its PGlite folder under `dataDir`. */
  service: string;
  /** The service's own PostgreSQL database (DATABASE_URL); unset or empty: PGlite under `dataDir/<service>`. */
  url?: string | undefined;
  dataDir: string;
  migrationsDir: string;
  logger: Logger;
  /** PostgreSQL pool size (default 10). */
  poolSize?: number;
}

/**
 * A service's database as its start-up and its CLI open it: PostgreSQL when a URL is given, else
 * embedded PGlite under DATA_DIR/<service>, migrated. A failed migration closes it again, so a
 * failed start keeps no pool open.
 */
export async function openServiceDatabase(options: ServiceDatabaseOptions): Promise<Db> {
  const { service, url, dataDir, migrationsDir, logger, poolSize } = options;
  const db = await openDatabase(url ? { url, logger, poolSize } : { dataDir: join(dataDir, service), logger });
  try {
    await migrate(db, migrationsDir, logger);
  } catch (err) {
    await db.close().catch((closeErr: unknown) => logger.error({ err: closeErr }, 'could not close the database after a failed migration'));
    throw err;
  }
  return db;
}
