import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, type Logger } from '@acs/logger';
import { openDatabase, type Db } from '@acs/db';
import { createTestDatabase } from '@acs/testing';

export interface LogLine {
  level: string;
  msg: string;
  [key: string]: unknown;
}

/** A real logger whose JSON lines the test reads back. */
export function captureLogger(): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const logger = createLogger({
    name: 'db-test',
    level: 'debug',
    destination: {
      write: (line: string) => {
        lines.push(JSON.parse(line) as LogLine);
      },
    },
  });
  return { logger, lines };
}

/** A Db of either kind; `cleanup` closes it and drops/deletes what it used. */
export async function openKind(kind: Db['kind'], logger: Logger = captureLogger().logger): Promise<{ db: Db; cleanup(): Promise<void> }> {
  if (kind === 'pglite') {
    const db = await openDatabase({ logger });
    return { db, cleanup: () => db.close() };
  }
  const database = await createTestDatabase('db_lib');
  const db = await openDatabase({ url: database.url, logger });
  return {
    db,
    cleanup: async () => {
      await db.close();
      await database.drop();
    },
  };
}

/** A temporary directory, removed by `remove()`. */
export async function tempDir(prefix: string): Promise<{ path: string; remove(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), `${prefix}-`));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/** Writes migration files (name → SQL) into a fresh temporary directory. */
export async function migrationsDir(files: Record<string, string>): Promise<{ path: string; remove(): Promise<void> }> {
  const dir = await tempDir('migrations');
  await Promise.all(Object.entries(files).map(([name, sql]) => writeFile(join(dir.path, name), sql)));
  return dir;
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
