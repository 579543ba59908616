import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { ConfigError, parseConfig, postgresUrl, serviceDatabaseUrl } from '@acs/config';
import { assertDataDirFree, migrate, openDatabase, type Db } from '@acs/db';
import { AppError } from '@acs/errors';
import { createLogger } from '@acs/logger';
import { importBatch, type ImportCounts } from './domain/import-catalog.js';
import { IMPORT_MAX_ROWS } from './domain/import-limits.js';
import { importRows, problemsMessage, validateImport } from './domain/validate-import.js';
import { CATALOG_MIGRATIONS_DIR } from './service.js';

const HELP = `Import catalog entries (DACs, amplifiers, speakers) from a JSON file.

Usage: npm run catalog -- import FILE.json [--dry-run]

  FILE.json   a JSON array of entries, or {"items": [...]}, in the shape POST /api/Dac/import takes
  --dry-run   validate and count what would be inserted and updated; write nothing
  -h, --help  this text

Every row is validated before anything is written; problems are printed per row (index, field,
message) and the command exits 1 with nothing written. Entries are upserted by (type, brand,
model), brand and model compared ignoring case; one product may appear once per file. The file is
written in batches of ${IMPORT_MAX_ROWS} rows (the API's per-request limit) through the same code as
the API, all inside one transaction: an error part-way leaves the catalog as it was. Progress goes
to stderr, the summary to stdout.

Environment:
  CATALOG_DATABASE_URL  the catalog database, used as is
  DATABASE_URL          the system's PostgreSQL server; the catalog database is <name>_catalog (as npm start does)
  DATA_DIR              embedded mode data (default ./.data); the system must be stopped
`;

/** Problems printed for a bad file; the count of all of them is printed as well. */
const CLI_MAX_DETAILS = 1000;

const cliEnvSchema = z.object({
  CATALOG_DATABASE_URL: postgresUrl().optional(),
  DATABASE_URL: postgresUrl().optional(),
  DATA_DIR: z.string().default('./.data'),
});

async function openCatalogDb(): Promise<Db> {
  const env = parseConfig('catalog cli', cliEnvSchema);
  const url = env.CATALOG_DATABASE_URL ?? (env.DATABASE_URL ? serviceDatabaseUrl(env.DATABASE_URL, 'catalog') : undefined);
  // PGlite is single-process: writing under a running system's feet would corrupt it.
  if (!url) await assertDataDirFree(env.DATA_DIR);
  const logger = createLogger({ name: 'catalog-cli', level: 'warn' });
  const db = await openDatabase(url ? { url, logger, poolSize: 1 } : { dataDir: join(env.DATA_DIR, 'catalog'), logger });
  try {
    await migrate(db, CATALOG_MIGRATIONS_DIR, logger);
  } catch (err) {
    await db.close().catch(() => {});
    throw err;
  }
  return db;
}

function progress(done: number, total: number, verb: string): void {
  const percent = Math.floor((done / total) * 100);
  const line = `${verb} ${done}/${total} rows (${percent}%)`;
  if (process.stderr.isTTY) {
    const width = 30;
    const filled = Math.round((done / total) * width);
    process.stderr.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${line}${done === total ? '\n' : ''}`);
  } else {
    process.stderr.write(`${line}\n`);
  }
}

async function runImport(file: string, dryRun: boolean): Promise<boolean> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new AppError('bad_request', 'Bad request', `Cannot read ${file}: ${(err as Error).message}`);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (err) {
    throw new AppError('bad_request', 'Bad request', `${file} is not valid JSON: ${(err as Error).message}`);
  }
  text = '';
  const rows = importRows(body);
  body = undefined;
  if (!rows) throw new AppError('bad_request', 'Bad request', `${file} must hold a JSON array of entries or {"items": [...]}`);
  if (rows.length === 0) throw new AppError('bad_request', 'Bad request', `${file} holds no entries`);

  // The whole file is validated (and checked for repeated products) before the first batch.
  const validated = validateImport(rows, CLI_MAX_DETAILS);
  if (!validated.ok) {
    console.error(`${problemsMessage(validated.problems, rows.length)}.`);
    for (const { path, message } of validated.problems.details) {
      const match = /^items\[(\d+)\]\.?(.*)$/.exec(path);
      console.error(`  row ${match?.[1] ?? '?'}  ${match?.[2] || '(entry)'}: ${message}`);
    }
    if (validated.problems.details.length < validated.problems.problemCount) {
      console.error(`  ... and ${validated.problems.problemCount - validated.problems.details.length} more`);
    }
    return false;
  }
  const entries = validated.entries;
  rows.length = 0;

  const db = await openCatalogDb();
  try {
    const verb = dryRun ? 'checked' : 'imported';
    const run = async (q: Parameters<typeof importBatch>[0]): Promise<ImportCounts> => {
      const sum: ImportCounts = { inserted: 0, updated: 0, total: 0 };
      for (let start = 0; start < entries.length; start += IMPORT_MAX_ROWS) {
        const counts = await importBatch(q, entries.slice(start, start + IMPORT_MAX_ROWS), dryRun);
        sum.inserted += counts.inserted;
        sum.updated += counts.updated;
        sum.total += counts.total;
        progress(sum.total, entries.length, verb);
      }
      return sum;
    };
    const counts = dryRun ? await run(db) : await db.transaction(run);
    console.log(
      dryRun
        ? `Dry run: ${counts.total} entries valid; would insert ${counts.inserted} and update ${counts.updated}. Nothing was written.`
        : `Imported ${counts.total} entries: ${counts.inserted} inserted, ${counts.updated} updated.`,
    );
    return true;
  } finally {
    await db.close();
  }
}

async function run(argv: string[]): Promise<boolean> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { help: { type: 'boolean', short: 'h' }, 'dry-run': { type: 'boolean' } },
  });
  const [command, file, ...rest] = positionals;
  if (values.help || !command) {
    console.log(HELP);
    return true;
  }
  if (command !== 'import') throw new AppError('bad_request', 'Bad request', `Unknown command "${command}". Run with --help.`);
  if (!file) throw new AppError('bad_request', 'Bad request', 'Name the file: import FILE.json');
  if (rest.length > 0) throw new AppError('bad_request', 'Bad request', `Unexpected argument "${rest[0]}". Run with --help.`);
  return runImport(file, values['dry-run'] === true);
}

run(process.argv.slice(2)).then(
  (ok) => process.exit(ok ? 0 : 1),
  (err: unknown) => {
    if (err instanceof AppError || err instanceof ConfigError) console.error(err.message);
    else if (err instanceof Error && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS')) console.error(`${err.message}. Run with --help.`);
    else console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
