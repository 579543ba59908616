import { Router, handle, type AppState } from '@acs/http';
import { listCatalogEndpoint } from '@acs/contracts';
import type { CatalogReads } from '../data-access/catalog-reads.js';
import { catalogEtag, matchesIfNoneMatch } from '../domain/catalog-etag.js';
import { listCatalog, planCatalogListing, type ListOptions } from '../domain/list-catalog.js';

export interface CatalogRouteOptions extends ListOptions {
  /** CATALOG_MAX_AGE_SECONDS. */
  maxAgeSeconds: number;
}

export function catalogRoutes(reads: CatalogReads, options: CatalogRouteOptions): Router<AppState> {
  const router = new Router<AppState>();
  const cacheControl = `private, max-age=${options.maxAgeSeconds}`;
  handle(router, listCatalogEndpoint, async (ctx, { query }) => {
    const listing = planCatalogListing(query);
    // The version is read before the rows: a write committing in between can only make the tag
    // older than the body (one extra 200 later), never tag an old body with the new version.
    const { db, version } = await reads.source();
    const etag = catalogEtag(version, listing);
    if (matchesIfNoneMatch(ctx.get('if-none-match') || undefined, etag)) {
      ctx.status = 304; // no body, and catalog_entries was not read
    } else {
      ctx.body = await listCatalog(db, listing, options);
    }
    // Set last: an error answer carries neither header.
    ctx.set('ETag', etag);
    ctx.set('Cache-Control', cacheControl);
  });
  return router;
}
