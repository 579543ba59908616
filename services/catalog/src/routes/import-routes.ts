import { Router, handle, readJsonBody, type AppContext, type AppState } from '@acs/http';
import { importCatalogEndpoint, type CatalogEntryInput } from '@acs/contracts';
import { badRequest, errorOf } from '@acs/errors';
import type { Db } from '@acs/db';
import { importCatalog } from '../domain/import-catalog.js';
import { readCatalogVersion } from '../data-access/catalog-version.js';
import type { CatalogReads } from '../data-access/catalog-reads.js';
import { IMPORT_MAX_BODY_BYTES, IMPORT_MAX_DETAILS, IMPORT_MAX_ROWS } from '../domain/import-limits.js';
import { importRows, problemsMessage, validateImport } from '../domain/validate-import.js';

/**
 * Reads the body once and validates every row. The raw rows live only in this frame: once it
 * returns, only the parsed entries stay reachable while the batch is written.
 */
async function readImport(ctx: AppContext): Promise<CatalogEntryInput[]> {
  const rows = importRows(await readJsonBody(ctx, IMPORT_MAX_BODY_BYTES));
  if (!rows)
    throw badRequest('The body must be a JSON array of catalog entries or {"items": [...]}', [
      { path: 'body', message: 'Expected an array or an object with only "items"' },
    ]);
  if (rows.length === 0) throw badRequest('The import holds no entries', [{ path: 'items', message: 'At least one entry is required' }]);
  if (rows.length > IMPORT_MAX_ROWS) {
    throw errorOf(
      'payload_too_large',
      `The import holds ${rows.length} entries; at most ${IMPORT_MAX_ROWS} are accepted per request: split it into batches (the catalog CLI does)`,
      { code: 'too_many_entries' },
    );
  }
  const validated = validateImport(rows, IMPORT_MAX_DETAILS);
  if (!validated.ok) throw badRequest(problemsMessage(validated.problems, rows.length), validated.problems.details);
  return validated.entries;
}

export function importRoutes(db: Db, reads: CatalogReads): Router<AppState> {
  const router = new Router<AppState>();
  // The contract's Admin check and dryRun query come first (handle): a refused caller's body is never read.
  handle(router, importCatalogEndpoint, async (ctx, { query: { dryRun } }) => {
    const entries = await readImport(ctx);
    const counts = await importCatalog(db, entries, dryRun === 'true');
    // Read after the commit: at least this import's version, so this instance's next reads see it.
    if (dryRun !== 'true') reads.wrote(await readCatalogVersion(db));
    ctx.body = counts;
  });
  return router;
}
