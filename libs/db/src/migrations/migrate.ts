import type { Logger } from '@acs/logger';
import { hasSessions, type Connection } from '../connection.js';
import type { Db } from '../db.js';
import { runTransaction } from '../transaction.js';
import { MigrationError } from './migration-error.js';
import { readMigrationFiles, type MigrationFile } from './migration-files.js';
import { appliedMigrations, CREATE_TABLE_SQL, MIGRATION_LOCK_KEY, RECORD_SQL } from './schema-migrations.js';

/**
 * Applies the directory's migrations that are not applied yet, in name order, each file in its
 * own transaction together with its schema_migrations row. The whole run holds an advisory lock,
 * so replicas starting together take turns and the later ones find nothing left to do.
 */
export async function migrate(db: Db, migrationsDir: string, logger: Logger): Promise<{ applied: string[] }> {
  if (!hasSessions(db)) throw new MigrationError('migrate needs a Db returned by openDatabase');
  // Read before taking the lock: a missing directory fails without making other replicas wait.
  const files = await readMigrationFiles(migrationsDir);
  return db.withSession(async (conn) => {
    await conn.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    let applied: string[];
    try {
      applied = await applyPending(conn, files, logger);
    } catch (err) {
      // The session is discarded after a failure, which drops the lock anyway; unlocking here
      // just frees it sooner, so its own failure must not hide the error that matters.
      await conn.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => {});
      throw err;
    }
    await conn.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    // One info line per start when something was applied; each file's timing and "nothing to do" are detail
    // (debug), so a first `npm start` shows a line per service, not one per migration.
    if (applied.length > 0) logger.info({ applied, total: files.length }, 'migrations applied');
    else logger.debug({ applied, total: files.length }, 'database schema is up to date');
    return { applied };
  });
}

async function applyPending(conn: Connection, files: MigrationFile[], logger: Logger): Promise<string[]> {
  await conn.exec(CREATE_TABLE_SQL);
  const done = await appliedMigrations(conn);
  assertUnchanged(files, done, logger);
  const applied: string[] = [];
  for (const file of files.filter((f) => !done.has(f.name))) {
    const started = Date.now();
    try {
      await runTransaction(conn, async (tx) => {
        await tx.exec(file.sql);
        await tx.query(RECORD_SQL, [file.name, file.checksum]);
      });
    } catch (err) {
      throw new MigrationError(`Migration ${file.name} failed and was rolled back: ${(err as Error).message}`, { cause: err });
    }
    logger.debug({ migration: file.name, ms: Date.now() - started }, 'migration applied');
    applied.push(file.name);
  }
  return applied;
}

/** Editing an applied file changes nothing in the database; say so instead of pretending. */
function assertUnchanged(files: MigrationFile[], done: Map<string, string>, logger: Logger): void {
  const changed = files.filter((f) => done.has(f.name) && done.get(f.name) !== f.checksum).map((f) => f.name);
  if (changed.length > 0) {
    throw new MigrationError(
      `Checksum mismatch: migration(s) ${changed.join(', ')} changed after being applied. Restore the original file(s) and put the change in a new migration.`,
    );
  }
  const known = new Set(files.map((f) => f.name));
  const missing = [...done.keys()].filter((name) => !known.has(name));
  if (missing.length > 0) logger.warn({ missing }, 'applied migrations have no file any more');
}
