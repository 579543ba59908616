import { existsSync } from 'node:fs';
import { mkdir, readdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import type { PGlite, Transaction } from '@electric-sql/pglite';
import type { Logger } from '@acs/logger';
import type { Db } from '../db.js';
import { migrate } from '../migrations/migrate.js';
import { openPglite } from './pglite-db.js';
import { withSharedSuperuser } from './shared-pglite.js';

// Before one shared PGlite, each service kept its own under DATA_DIR/<service>. On the first start
// of the new layout that folder's rows are copied into the service's schema, and the folder is
// renamed (kept, not deleted). Never silently ignored: when the copy cannot be made, the start fails
// and says what to do.

const ROWS_PER_INSERT = 500;

/** What PostgreSQL keeps in a data folder; anything else there (identity's JWT key file) stays put. */
const POSTGRES_ENTRY = /^(PG_VERSION|base|global|pg_[a-z_]+|postgresql\..*|postmaster\..*)$/;

/** Moves the old database's files out of the service folder, leaving the service's other files. */
async function setAside(folder: string, keptAs: string): Promise<void> {
  await mkdir(keptAs, { recursive: true });
  for (const entry of await readdir(folder)) {
    if (POSTGRES_ENTRY.test(entry)) await rename(join(folder, entry), join(keptAs, entry));
  }
}

/** The folder an older version kept the service's PGlite in, if it is still there. */
function legacyFolderOf(dataDir: string, service: string): string | null {
  const folder = join(dataDir, service);
  return existsSync(join(folder, 'PG_VERSION')) ? folder : null;
}

const quote = (name: string): string => `"${name.replace(/"/g, '""')}"`;

async function columnsOf(tx: Transaction, schema: string, table: string): Promise<string[]> {
  const { rows } = await tx.query<{ name: string }>(
    "SELECT column_name AS name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 AND is_generated = 'NEVER' ORDER BY ordinal_position",
    [schema, table],
  );
  return rows.map((row) => row.name);
}

async function tableNames(db: Db): Promise<string[]> {
  const { rows } = await db.query<{ name: string }>(
    "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'schema_migrations' ORDER BY tablename",
  );
  return rows.map((row) => row.name);
}

/** Copies every table and sequence of the old database (its public schema) into `schema`, in one transaction. */
async function copyInto(pglite: PGlite, old: Db, schema: string): Promise<Record<string, number>> {
  const tables = await tableNames(old);
  const copied: Record<string, number> = {};
  await pglite.transaction(async (tx) => {
    // Foreign keys and triggers off for the copy: rows arrive table by table, already consistent.
    await tx.exec('SET LOCAL session_replication_role = replica');
    for (const table of tables) {
      const target = `${quote(schema)}.${quote(table)}`;
      const {
        rows: [present],
      } = await tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${target}`);
      if (present && present.n > 0) {
        throw new Error(`${target} already has rows, so the data in the old folder cannot be carried over`);
      }
      const columns = (await columnsOf(tx, schema, table)).map(quote).join(', ');
      const { rows } = await old.query<{ row: string }>(`SELECT row_to_json(t)::text AS row FROM public.${quote(table)} t`);
      for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
        const chunk = `[${rows
          .slice(i, i + ROWS_PER_INSERT)
          .map((r) => r.row)
          .join(',')}]`;
        await tx.query(
          `INSERT INTO ${target} (${columns}) OVERRIDING SYSTEM VALUE SELECT ${columns} FROM json_populate_recordset(NULL::${target}, $1::json)`,
          [chunk],
        );
      }
      copied[table] = rows.length;
    }
    const { rows: sequences } = await old.query<{ name: string }>(
      "SELECT sequencename AS name FROM pg_sequences WHERE schemaname = 'public'",
    );
    for (const { name } of sequences) {
      const {
        rows: [state],
      } = await old.query<{ last_value: number; is_called: boolean }>(`SELECT last_value, is_called FROM public.${quote(name)}`);
      if (state)
        await tx.query('SELECT setval($1::regclass, $2, $3)', [`${quote(schema)}.${quote(name)}`, state.last_value, state.is_called]);
    }
  });
  return copied;
}

/**
 * Carries the service's data over from DATA_DIR/<service> (the older layout) into its schema of
 * the shared PGlite, which must be open and migrated; then moves the old database's files to
 * `<service>.carried-over` (other files of the service, like identity's JWT key, stay). The old database is migrated first, so both have the same tables.
 */
export async function carryOverLegacyFolder(dataDir: string, service: string, migrationsDir: string, logger: Logger): Promise<void> {
  const folder = legacyFolderOf(dataDir, service);
  if (!folder) return;
  const keptAs = `${folder}.carried-over`;
  try {
    const old = await openPglite(folder, logger);
    try {
      await migrate(old, migrationsDir, logger);
      const copied = await withSharedSuperuser(join(dataDir, 'pglite'), (pglite) => copyInto(pglite, old, service));
      logger.warn(
        { service, from: folder, keptAs, rows: copied },
        'carried the data of the older layout over into the shared embedded database',
      );
    } finally {
      await old.close();
    }
    await setAside(folder, keptAs);
  } catch (err) {
    throw new Error(
      `${folder} holds ${service} data in the layout of an older version, and carrying it over failed: ${(err as Error).message}. ` +
        `Nothing was changed in that folder. To start without it, move it away (e.g. mv ${folder} ${keptAs}); to keep using it, run the older version.`,
      { cause: err },
    );
  }
}
