import { describe, expect, it } from '@jest/globals';
import { openDatabase } from '@acs/db';
import { createTestDatabase, testServerUrl, uniqueName } from '@acs/testing';
import { captureLogger, sleep } from './helpers.js';

/** A URL naming a database that does not exist yet, on the test server. */
function urlOfMissingDatabase(name: string): string {
  const url = new URL(testServerUrl('DATABASE_URL'));
  url.pathname = `/${name}`; // the URL percent-encodes what it must; pg decodes it with decodeURI
  return url.toString();
}

/** Drops a database by any name, through the server URL's own (maintenance) database. */
async function dropDatabase(name: string): Promise<void> {
  const admin = await openDatabase({ url: testServerUrl('DATABASE_URL'), logger: captureLogger().logger, poolSize: 1 });
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${name.replace(/"/g, '""')}" WITH (FORCE)`);
  } finally {
    await admin.close();
  }
}

describe('PostgreSQL database creation', () => {
  it('creates the database named in the URL when it is missing', async () => {
    const database = await createTestDatabase('db_autocreate');
    await database.drop(); // keep its URL, lose the database
    const { logger, lines } = captureLogger();
    const db = await openDatabase({ url: database.url, logger });
    try {
      expect((await db.query<{ name: string }>('SELECT current_database() AS name')).rows[0]?.name).toBe(
        new URL(database.url).pathname.slice(1),
      );
      expect(lines).toContainEqual(expect.objectContaining({ level: 'info', msg: 'created database' }));
    } finally {
      await db.close();
      await database.drop();
    }
  });

  it('quotes a database name that needs quoting', async () => {
    const name = `Odd "Name"; ${uniqueName('x')}`;
    const db = await openDatabase({ url: urlOfMissingDatabase(name), logger: captureLogger().logger });
    try {
      expect((await db.query<{ name: string }>('SELECT current_database() AS name')).rows).toEqual([{ name }]);
    } finally {
      await db.close();
      await dropDatabase(name);
    }
  });

  it('tolerates replicas creating the same database at the same moment', async () => {
    const name = uniqueName('db_race');
    const url = urlOfMissingDatabase(name);
    const opened = await Promise.all(Array.from({ length: 4 }, () => openDatabase({ url, logger: captureLogger().logger })));
    try {
      await Promise.all(opened.map((db) => db.ping()));
    } finally {
      await Promise.all(opened.map((db) => db.close()));
      await dropDatabase(name);
    }
  });

  it('leaves an existing database alone', async () => {
    const database = await createTestDatabase('db_existing');
    const { logger, lines } = captureLogger();
    const db = await openDatabase({ url: database.url, logger });
    try {
      await db.ping();
      expect(lines.map((l) => l.msg)).not.toContain('created database');
    } finally {
      await db.close();
      await database.drop();
    }
  });

  it('fails with a clear message, without the password, when the server is unreachable', async () => {
    await expect(openDatabase({ url: 'postgres://someone:hunter2@127.0.0.1:1/nowhere', logger: captureLogger().logger })).rejects.toThrow(
      /Cannot connect to PostgreSQL at postgres:\/\/someone:\*\*\*@127\.0\.0\.1:1\/nowhere/,
    );
  });
});

describe('createTestDatabase', () => {
  it('throws, never skips, when the test server is unreachable', async () => {
    const saved = process.env.DATABASE_URL;
    process.env.DATABASE_URL = 'postgres://postgres:secret@127.0.0.1:1/postgres';
    try {
      const attempt = createTestDatabase('unreachable');
      await expect(attempt).rejects.toThrow(
        /Test PostgreSQL is unreachable at postgres:\/\/postgres@127\.0\.0\.1:1\/postgres \(set DATABASE_URL\)/,
      );
      await expect(attempt).rejects.not.toThrow(/secret/);
    } finally {
      if (saved === undefined) delete process.env.DATABASE_URL;
      else process.env.DATABASE_URL = saved;
    }
  });
});

describe('PostgreSQL pool', () => {
  it('logs a dropped idle connection, survives it and serves the next query', async () => {
    const database = await createTestDatabase('db_idle');
    const { logger, lines } = captureLogger();
    const db = await openDatabase({ url: database.url, logger, poolSize: 1 });
    const admin = await openDatabase({ url: database.url, logger: captureLogger().logger, poolSize: 1 });
    try {
      const {
        rows: [idle],
      } = await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      await admin.query('SELECT pg_terminate_backend($1)', [idle?.pid]);
      for (let i = 0; i < 50 && !lines.some((l) => l.level === 'error'); i++) await sleep(20);
      expect(lines).toContainEqual(
        expect.objectContaining({ level: 'error', msg: 'idle PostgreSQL connection failed; the pool replaces it' }),
      );
      expect((await db.query('SELECT 1 AS ok')).rows).toEqual([{ ok: 1 }]);
    } finally {
      await admin.close();
      await db.close();
      await database.drop();
    }
  });

  it('survives a connection dropped in the middle of a transaction', async () => {
    const database = await createTestDatabase('db_busy');
    const { logger, lines } = captureLogger();
    const db = await openDatabase({ url: database.url, logger, poolSize: 1 });
    const admin = await openDatabase({ url: database.url, logger: captureLogger().logger, poolSize: 1 });
    try {
      await expect(
        db.transaction(async (tx) => {
          const {
            rows: [self],
          } = await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
          await admin.query('SELECT pg_terminate_backend($1)', [self?.pid]);
          for (let i = 0; i < 50 && !lines.some((l) => l.level === 'error'); i++) await sleep(20);
          await tx.query('SELECT 1');
        }),
      ).rejects.toThrow();
      expect(lines).toContainEqual(expect.objectContaining({ level: 'error', msg: 'PostgreSQL connection failed while in use' }));
      expect((await db.query('SELECT 1 AS ok')).rows).toEqual([{ ok: 1 }]);
    } finally {
      await admin.close();
      await db.close();
      await database.drop();
    }
  });
});
