import { readFile } from 'node:fs/promises';
import { UsageError, assertNoOperands, cliStoreEnvironment, openCliStore, runCli } from '@acs/cli';
import { importInBatches } from './domain/import-catalog.js';
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

${cliStoreEnvironment('catalog', false)}`;

/** Problems printed for a bad file; the count of all of them is printed as well. */
const CLI_MAX_DETAILS = 1000;

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
    throw new UsageError(`Cannot read ${file}: ${(err as Error).message}`);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${file} is not valid JSON: ${(err as Error).message}`);
  }
  text = '';
  const rows = importRows(body);
  body = undefined;
  if (!rows) throw new UsageError(`${file} must hold a JSON array of entries or {"items": [...]}`);
  if (rows.length === 0) throw new UsageError(`${file} holds no entries`);

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

  const store = await openCliStore({
    service: 'catalog',
    cli: 'catalog cli',
    migrationsDir: CATALOG_MIGRATIONS_DIR,
    sharedCache: false,
    poolSize: 1,
  });
  try {
    const verb = dryRun ? 'checked' : 'imported';
    const counts = await importInBatches(store.db, entries, {
      dryRun,
      batchSize: IMPORT_MAX_ROWS,
      onProgress: (done, total) => progress(done, total, verb),
    });
    console.log(
      dryRun
        ? `Dry run: ${counts.total} entries valid; would insert ${counts.inserted} and update ${counts.updated}. Nothing was written.`
        : `Imported ${counts.total} entries: ${counts.inserted} inserted, ${counts.updated} updated.`,
    );
    return true;
  } finally {
    await store.close();
  }
}

runCli({
  help: HELP,
  commands: ['import'],
  options: { 'dry-run': { type: 'boolean' } },
  async run({ operands: [file, ...rest], values }) {
    if (!file) throw new UsageError('Name the file: import FILE.json');
    assertNoOperands(rest);
    return runImport(file, values['dry-run'] === true);
  },
});
