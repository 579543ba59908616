import type { Db } from './db.js';
import { pendingMigrations } from './migrations/pending.js';

/**
 * The readiness checks every service with a database has (for /readyz): the database answers,
 * and every migration file is applied. Each answers "ok" or what is wrong.
 */
export function databaseReadinessChecks(db: Db, migrationsDir: string): Record<'database' | 'migrations', () => Promise<string>> {
  return {
    database: async () => {
      await db.ping();
      return 'ok';
    },
    migrations: async () => {
      const pending = await pendingMigrations(db, migrationsDir);
      return pending.length === 0 ? 'ok' : `pending: ${pending.join(', ')}`;
    },
  };
}
