import type { Db } from '@acs/db';
import type { CatalogPage, CatalogQuery } from '@acs/contracts';
import { countCatalogEntries, findCatalogPage } from '../data-access/catalog-repository.js';

/** A page past the end is an empty list with the real totals, so clients can stop paging. */
export async function listCatalog(db: Db, query: CatalogQuery): Promise<CatalogPage> {
  const filter = query.brand === undefined ? {} : { brand: query.brand };
  const [items, total] = await Promise.all([
    findCatalogPage(db, filter, query.pageSize, (query.page - 1) * query.pageSize),
    countCatalogEntries(db, filter),
  ]);
  return { items, page: query.page, pageSize: query.pageSize, total, totalPages: Math.ceil(total / query.pageSize) };
}
