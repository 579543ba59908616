import type { z } from 'zod';
import { catalogEntryInputSchema, parseCatalogEntryFast, type CatalogEntryInput } from '@acs/contracts';
import type { ErrorDetail } from '@acs/errors';
import { inputMessage, problemsOf } from '@acs/http';

/** The largest value of the price column, numeric(12, 2) (migration 001). */
const MAX_PRICE = 9_999_999_999.99;

export interface ImportProblems {
  /** The first `maxDetails` problems, in row order: path `items[<index>].<field>`. */
  details: ErrorDetail[];
  /** Every problem found, listed or not. */
  problemCount: number;
  /** Rows with at least one problem. */
  badRows: number;
}

export type ValidatedImport = { ok: true; entries: CatalogEntryInput[] } | { ok: false; problems: ImportProblems };

/** The rows of a body: a JSON array, or {"items": [...]} with no other key. Null: neither. */
export function importRows(body: unknown): unknown[] | null {
  if (Array.isArray(body)) return body;
  if (typeof body === 'object' && body !== null && Object.keys(body).length === 1 && Array.isArray((body as { items?: unknown }).items)) {
    return (body as { items: unknown[] }).items;
  }
  return null;
}

function fieldPath(index: number, path: readonly PropertyKey[]): string {
  let out = `items[${index}]`;
  for (const part of path) out += typeof part === 'number' ? `[${part}]` : `.${String(part)}`;
  return out;
}

/** The row's problems (an unknown key at the key itself, as every body's: @acs/http), each under `items[<index>]`. */
function issueDetails(index: number, issues: readonly z.core.$ZodIssue[]): ErrorDetail[] {
  return issues.flatMap((issue) =>
    problemsOf(issue, 'unknown field').map(({ path, message }) => ({ path: fieldPath(index, path), message })),
  );
}

/**
 * The product key the database upserts on: (type, lower(brand), lower(model)). Brand and model
 * are already trimmed by the schema. JS and PostgreSQL may lower-case a few exotic characters
 * differently; the upsert's own cardinality error backs this check up (import-catalog.ts).
 */
const productKey = (entry: CatalogEntryInput): string =>
  `${entry.type}\u0000${entry.brand.toLowerCase()}\u0000${entry.model.toLowerCase()}`;

/**
 * Validates every row before anything is written, and finds rows naming the same product twice
 * (an upsert cannot touch one row twice in a statement, and the result would depend on order).
 * Keeps only the parsed entries: the raw rows can be collected as soon as the caller drops them.
 */
export function validateImport(rows: readonly unknown[], maxDetails: number): ValidatedImport {
  const entries: CatalogEntryInput[] = new Array<CatalogEntryInput>(rows.length);
  const firstIndexOf = new Map<string, number>();
  const details: ErrorDetail[] = [];
  let problemCount = 0;
  let badRows = 0;
  const report = (found: ErrorDetail[]): void => {
    badRows += 1;
    problemCount += found.length;
    for (const detail of found) if (details.length < maxDetails) details.push(detail);
  };
  for (let index = 0; index < rows.length; index++) {
    // The hand-written check answers valid rows; zod judges the rest, in the API's words for input (@acs/http).
    let entry = parseCatalogEntryFast(rows[index]);
    if (!entry) {
      const result = catalogEntryInputSchema.safeParse(rows[index], { error: inputMessage });
      if (!result.success) {
        report(issueDetails(index, result.error.issues));
        continue;
      }
      entry = result.data;
    }
    // numeric(12, 2) in the table: a larger price would fail the whole statement with no row named.
    if (entry.price > MAX_PRICE) {
      report([{ path: fieldPath(index, ['price']), message: `Price must be at most ${MAX_PRICE}` }]);
      continue;
    }
    const key = productKey(entry);
    const first = firstIndexOf.get(key);
    if (first !== undefined) {
      report([
        {
          path: `items[${index}]`,
          message: `Same product as items[${first}] (type, brand and model, ignoring case): each product may appear once per import`,
        },
      ]);
      continue;
    }
    firstIndexOf.set(key, index);
    entries[index] = entry;
  }
  return problemCount === 0 ? { ok: true, entries } : { ok: false, problems: { details, problemCount, badRows } };
}

export function problemsMessage(problems: ImportProblems, rows: number): string {
  const listed = problems.details.length < problems.problemCount ? `; the first ${problems.details.length} are listed in details` : '';
  return `The import has ${problems.problemCount} problem(s) in ${problems.badRows} of ${rows} entries; nothing was written${listed}`;
}
