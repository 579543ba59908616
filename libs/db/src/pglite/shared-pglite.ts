import { resolve } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import type { Logger } from '@acs/logger';
import type { Connection, SessionDb } from '../connection.js';
import { createPglite, PgliteDb } from './pglite-db.js';
import { SerialQueue } from './serial-queue.js';

// One PGlite per data folder and process, shared by every service of `npm start`: each instance
// is a whole PostgreSQL in WebAssembly (hundreds of MB), so six of them were most of its memory.
// Each service still has a database of its own in effect: a schema owned by a role of its own,
// and every turn of the shared queue runs as that role with that schema first on the search path,
// so a service neither sees nor may read another's tables.

interface Shared {
  pglite: PGlite;
  queue: SerialQueue;
  /** The service whose role and search path are set now. */
  current: string | undefined;
}

interface Entry {
  shared: Promise<Shared>;
  users: number;
}

const instances = new Map<string, Entry>();
const SERVICE_NAME = /^[a-z][a-z0-9_]{0,40}$/;

/** The role that owns a service's schema; the schema is named after the service. */
const schemaOwnerRole = (service: string): string => `${service}_service`;

function assertServiceName(service: string): void {
  // The name becomes an SQL identifier below: only plain lower-case names are taken.
  if (!SERVICE_NAME.test(service)) throw new Error(`"${service}" cannot name an embedded schema (lower-case letters, digits, _)`);
}

/** As the superuser: the service's role and schema, made when missing. */
async function ensureSchema(shared: Shared, service: string): Promise<void> {
  const role = schemaOwnerRole(service);
  shared.current = undefined;
  await shared.pglite.exec(`RESET ROLE; RESET search_path;
DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${role}') THEN CREATE ROLE "${role}" NOLOGIN; END IF; END $$;
CREATE SCHEMA IF NOT EXISTS "${service}" AUTHORIZATION "${role}";`);
}

async function enter(shared: Shared, service: string, conn: Connection): Promise<void> {
  if (shared.current === service) return;
  shared.current = undefined;
  await conn.exec(`RESET ROLE; SET ROLE "${schemaOwnerRole(service)}"; SET search_path TO "${service}"`);
  shared.current = service;
}

function release(dir: string, entry: Entry, shared: Shared): Promise<void> {
  entry.users--;
  if (entry.users > 0) return Promise.resolve();
  instances.delete(dir);
  return shared.queue.run(() => shared.pglite.close());
}

/**
 * Runs `fn` on the shared instance of `dataDir` as its superuser, in the queue (for carrying
 * data over from an older layout). The instance must be open (a service's Db holds it).
 */
export async function withSharedSuperuser<T>(dataDir: string, fn: (pglite: PGlite) => Promise<T>): Promise<T> {
  const entry = instances.get(resolve(dataDir));
  if (!entry) throw new Error(`No embedded database is open in ${dataDir}`);
  const shared = await entry.shared;
  return shared.queue.run(async () => {
    shared.current = undefined;
    await shared.pglite.exec('RESET ROLE; RESET search_path');
    return fn(shared.pglite);
  });
}

/** The service's view of the data folder's one PGlite: its own role and schema. Close it like any Db. */
export async function openSharedPglite(dataDir: string, service: string, logger: Logger): Promise<SessionDb> {
  assertServiceName(service);
  const dir = resolve(dataDir);
  let entry = instances.get(dir);
  if (!entry) {
    const created: Entry = {
      users: 0,
      shared: createPglite(dir).then((pglite) => ({ pglite, queue: new SerialQueue(), current: undefined })),
    };
    created.shared.catch(() => instances.delete(dir));
    instances.set(dir, created);
    entry = created;
  }
  // Counted before waiting, so a concurrent last close cannot close the instance under us.
  entry.users++;
  const opened = entry;
  let shared: Shared;
  try {
    shared = await opened.shared;
  } catch (err) {
    opened.users--;
    throw err;
  }
  try {
    await shared.queue.run(() => ensureSchema(shared, service));
  } catch (err) {
    await release(dir, opened, shared);
    throw err;
  }
  logger.debug({ dataDir: dir, schema: service }, 'using embedded PGlite (shared, own schema)');
  return new PgliteDb(
    shared.pglite,
    logger,
    { namespace: service },
    {
      queue: shared.queue,
      enter: (conn) => enter(shared, service, conn),
      close: () => release(dir, opened, shared),
    },
  );
}
