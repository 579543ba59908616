import type { Db } from '../db.js';
import { readMigrationFiles } from './migration-files.js';
import { appliedMigrations } from './schema-migrations.js';

/** Names of the directory's migrations not applied yet; /readyz answers 503 while any remain. */
export async function pendingMigrations(db: Db, migrationsDir: string): Promise<string[]> {
  const [files, done] = await Promise.all([readMigrationFiles(migrationsDir), appliedMigrations(db)]);
  return files.filter((file) => !done.has(file.name)).map((file) => file.name);
}
