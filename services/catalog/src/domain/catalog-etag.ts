import { createHash } from 'node:crypto';
import type { CatalogListing } from './list-catalog.js';

/**
 * The ETag of an answer: the catalog version and what the answer reads. The same version and
 * listing give the same body (brand and q kept as sent: they are echoed inside nextCursor), so the same
 * tag; any change to catalog_entries moves the version (migration 003).
 */
export function catalogEtag(version: number, listing: CatalogListing): string {
  const { brand, type, q } = listing.filter;
  const key = JSON.stringify([brand ?? null, type ?? null, q ?? null, listing.page, listing.pageSize, listing.afterId, listing.offset]);
  const digest = createHash('sha256').update(key).digest('base64url').slice(0, 22);
  return `"${version}-${digest}"`;
}

/**
 * If-None-Match holds `*` or a list of tags; the comparison is weak (RFC 9110 13.1.2), so a
 * W/ prefix a proxy may have added still matches.
 */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}
