import { badRequest } from '@acs/errors';
import { CATALOG_TYPES, type CatalogType } from '@acs/contracts';
import type { CatalogFilter } from '../data-access/catalog-repository.js';

/** The filters an answer was computed with; a cursor carries them so the next page keeps them. */
export type { CatalogFilter };

export interface CursorPosition {
  /** The id of the last entry already returned: the next page starts after it. */
  afterId: number;
  filter: CatalogFilter;
}

const VERSION = 1;

/**
 * Opaque to clients: base64url (URL-safe, no padding) of a small JSON array. It holds no secret
 * (only the last id and the filters the client sent), so it needs no signature: a forged cursor
 * can only ask for entries any caller may list anyway.
 */
export function encodeCursor(position: CursorPosition): string {
  const { brand, type, q } = position.filter;
  return Buffer.from(JSON.stringify([VERSION, position.afterId, brand ?? null, type ?? null, q ?? null]), 'utf8').toString('base64url');
}

const invalid = (message: string) => badRequest('The request query is invalid', [{ path: 'query.cursor', message }]);
const NOT_A_CURSOR = 'cursor must be a nextCursor value of an earlier answer';

const optionalText = (value: unknown): value is string | null =>
  value === null || (typeof value === 'string' && value.length > 0 && value.length <= 120);

export function decodeCursor(cursor: string): CursorPosition {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid(NOT_A_CURSOR);
  }
  if (!Array.isArray(decoded) || decoded.length !== 5 || decoded[0] !== VERSION) throw invalid(NOT_A_CURSOR);
  const [, afterId, brand, type, q] = decoded as unknown[];
  if (
    typeof afterId !== 'number' ||
    !Number.isSafeInteger(afterId) ||
    afterId < 0 ||
    afterId > 2_147_483_647 ||
    !optionalText(brand) ||
    !optionalText(q) ||
    !(type === null || CATALOG_TYPES.includes(type as CatalogType))
  ) {
    throw invalid(NOT_A_CURSOR);
  }
  const filter: CatalogFilter = {};
  if (brand !== null) filter.brand = brand;
  if (type !== null) filter.type = type as CatalogType;
  if (q !== null) filter.q = q;
  return { afterId, filter };
}

/**
 * The filters of a cursor request: those the cursor carries. Filters named again in the query
 * must be the same (brand and q ignoring case, as they match); a different or an added one is
 * refused rather than silently mixing the pages of two listings.
 */
export function cursorFilter(position: CursorPosition, query: CatalogFilter): CatalogFilter {
  const same = (asked: string | undefined, carried: string | undefined) =>
    asked === undefined || asked.toLowerCase() === carried?.toLowerCase();
  const differing = (['brand', 'type', 'q'] as const).filter((name) => !same(query[name], position.filter[name]));
  if (differing.length > 0) {
    throw invalid(`cursor was made for other filters (${differing.join(', ')}): drop them, or start again without cursor`);
  }
  return position.filter;
}
