import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface MigrationFile {
  name: string;
  checksum: string;
  sql: string;
}

/**
 * The directory's `*.sql` files in name order (so prefix them: 001_, 002_, ...). Each file runs
 * inside a transaction of its own, so it must not contain BEGIN/COMMIT or statements that refuse
 * a transaction (CREATE INDEX CONCURRENTLY).
 */
export async function readMigrationFiles(dir: string): Promise<MigrationFile[]> {
  const names = (await readdir(dir, { withFileTypes: true }))
    .filter((entry) => entry.isFile() && entry.name.endsWith('.sql'))
    .map((entry) => entry.name)
    // Code-unit order, not locale order: every machine must agree on it.
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return Promise.all(
    names.map(async (name) => {
      const sql = await readFile(join(dir, name), 'utf8');
      return { name, sql, checksum: checksumOf(sql) };
    }),
  );
}

/** SHA-256 of the text with CRLF read as LF: a Windows checkout must not look like an edit. */
function checksumOf(sql: string): string {
  return createHash('sha256').update(sql.replace(/\r\n/g, '\n')).digest('hex');
}
