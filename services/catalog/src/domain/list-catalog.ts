import type { Db } from '@acs/db';
import type { CatalogPage, CatalogQuery } from '@acs/contracts';
import { countCatalogEntries, findCatalogPage } from '../data-access/catalog-repository.js';
import { cursorFilter, decodeCursor, encodeCursor, type CatalogFilter } from './catalog-cursor.js';
import type { DeepPageLimiter } from './deep-page-limiter.js';

/** What one GET /api/Dac reads, worked out from the query alone (no database), with its 400s. */
export interface CatalogListing {
  filter: CatalogFilter;
  /** The spec's page number; null for a cursor request. */
  page: number | null;
  pageSize: number;
  /** Keyset start: entries with a larger id (0: from the first). */
  afterId: number;
  /** Rows skipped after afterId (the spec's page; 0 for a cursor). */
  offset: number;
}

export function planCatalogListing(query: CatalogQuery): CatalogListing {
  const queryFilter: CatalogFilter = {};
  if (query.brand !== undefined) queryFilter.brand = query.brand;
  if (query.type !== undefined) queryFilter.type = query.type;
  if (query.q !== undefined) queryFilter.q = query.q;
  if (query.cursor !== undefined) {
    const position = decodeCursor(query.cursor);
    return { filter: cursorFilter(position, queryFilter), page: null, pageSize: query.pageSize, afterId: position.afterId, offset: 0 };
  }
  const page = query.page ?? 1;
  return { filter: queryFilter, page, pageSize: query.pageSize, afterId: 0, offset: (page - 1) * query.pageSize };
}

export interface ListOptions {
  /** Where expensive requests queue (deep-page-limiter.ts): deep `page` requests and searches. */
  deepPages: DeepPageLimiter;
  /** From this many skipped rows on, a `page` request is deep. */
  deepOffset: number;
}

/**
 * One answer, by `page` (OFFSET, the spec's) or by `cursor` (keyset). One row more than the page
 * is read, so `nextCursor` is null exactly on the last page. A page past the end is an empty list
 * with the real totals, so clients can stop paging.
 */
export async function listCatalog(db: Db, listing: CatalogListing, options: ListOptions): Promise<CatalogPage> {
  const { filter, pageSize, offset } = listing;
  const read = () => findCatalogPage(db, filter, pageSize + 1, { afterId: listing.afterId, offset });
  const count = () => countCatalogEntries(db, filter);
  // A search reads an unknown share of the table (and counts it): both run in one slot, one after
  // the other, so a slot never holds more than one connection.
  const [rows, total] =
    filter.q !== undefined
      ? await options.deepPages.run(async () => [await read(), await count()] as const)
      : await Promise.all([offset >= options.deepOffset ? options.deepPages.run(read) : read(), count()]);
  const items = rows.slice(0, pageSize);
  const last = items.at(-1);
  const nextCursor = rows.length > pageSize && last ? encodeCursor({ afterId: last.id, filter }) : null;
  return { items, page: listing.page, pageSize, total, totalPages: Math.ceil(total / pageSize), nextCursor };
}
