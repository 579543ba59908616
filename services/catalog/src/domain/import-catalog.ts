import type { Db, Queryable } from '@acs/db';
import { sqlStateOf } from '@acs/db';
import { badRequest, type AppError } from '@acs/errors';
import type { CatalogEntryInput } from '@acs/contracts';
import { countExistingProducts, productKeysParameter, upsertEntries } from '../data-access/import-repository.js';

export interface ImportCounts {
  inserted: number;
  updated: number;
  total: number;
}

/**
 * Writes one validated batch (or, dry, only counts what it would do). The HTTP route runs it in
 * its own transaction; the CLI runs every batch of a file in one transaction. A dry run looks up
 * which products exist and writes nothing, so its counts equal the real import's when nothing
 * else writes in between.
 */
async function importBatch(db: Queryable, entries: readonly CatalogEntryInput[], dryRun: boolean): Promise<ImportCounts> {
  if (entries.length === 0) return { inserted: 0, updated: 0, total: 0 };
  try {
    if (dryRun) {
      const existing = await countExistingProducts(db, productKeysParameter(entries));
      return { inserted: entries.length - existing, updated: existing, total: entries.length };
    }
    const { inserted, updated } = await upsertEntries(db, entries);
    return { inserted, updated, total: inserted + updated };
  } catch (err) {
    throw asClientError(err) ?? err;
  }
}

/** One validated batch, all-or-nothing. */
export function importCatalog(db: Db, entries: readonly CatalogEntryInput[], dryRun: boolean): Promise<ImportCounts> {
  return dryRun ? importBatch(db, entries, true) : db.transaction((tx) => importBatch(tx, entries, false));
}

/**
 * A whole file's validated entries, in batches of `batchSize` through the same code as the API;
 * all in one transaction (an error part-way leaves the catalog as it was), or, dry, only counted.
 * `onProgress` hears the rows done after each batch.
 */
export async function importInBatches(
  db: Db,
  entries: readonly CatalogEntryInput[],
  options: { dryRun: boolean; batchSize: number; onProgress: (done: number, total: number) => void },
): Promise<ImportCounts> {
  const run = async (q: Queryable): Promise<ImportCounts> => {
    const sum: ImportCounts = { inserted: 0, updated: 0, total: 0 };
    for (let start = 0; start < entries.length; start += options.batchSize) {
      const counts = await importBatch(q, entries.slice(start, start + options.batchSize), options.dryRun);
      sum.inserted += counts.inserted;
      sum.updated += counts.updated;
      sum.total += counts.total;
      options.onProgress(sum.total, entries.length);
    }
    return sum;
  };
  return options.dryRun ? run(db) : db.transaction(run);
}

/**
 * 21000: two rows of the batch are one product in PostgreSQL's lower() though not in JS's
 * toLowerCase() (a few Unicode letters). Still the client's duplicate, so 400 rather than 500.
 */
function asClientError(err: unknown): AppError | null {
  if (sqlStateOf(err) !== '21000') return null;
  return badRequest(
    'Two entries of the import are the same product (type, brand and model, ignoring case); nothing was written',
    undefined,
    'duplicate_entry',
  );
}
