export type { Db, OpenDatabaseOptions, Queryable, QueryResult } from './db.js';
export { openDatabase } from './open-database.js';
export { listenForNotifications, type ListenOptions, type Listener } from './postgres/listener.js';
export {
  openConfiguredDatabase,
  openConfiguredDatabaseIn,
  type ClosesOnStop,
  openEmbeddedDatabase,
  openServiceDatabase,
  type ServiceDatabaseOptions,
} from './open-service-database.js';
export { migrate } from './migrations/migrate.js';
export { pendingMigrations } from './migrations/pending.js';
export { MigrationError } from './migrations/migration-error.js';
export { isUniqueViolation, sqlStateOf } from './sql-errors.js';
export { acquireDataDirLock, assertDataDirFree, runningPid } from './data-dir-lock.js';
export { databaseReadinessChecks } from './readiness.js';
export { makeDataDirPrivate, privateFileModes } from './data-dir-privacy.js';
export { startPeriodicPurge, type PeriodicPurge } from './periodic-purge.js';
export { assertSqlIdentifier } from './sql-identifier.js';
export { jsonbParameter } from './values/jsonb-parameter.js';
export { groupWriter, type GroupWriter } from './group-writer.js';
