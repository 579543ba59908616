import { badRequest } from '@acs/errors';

/** The filters an answer was computed with; a cursor carries them so the next page keeps them. */
export interface CatalogFilter {
  brand?: string;
}

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
  return Buffer.from(JSON.stringify([VERSION, position.afterId, position.filter.brand ?? null]), 'utf8').toString('base64url');
}

const invalid = (message: string) => badRequest('The request query is invalid', [{ path: 'query.cursor', message }]);

export function decodeCursor(cursor: string): CursorPosition {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid('cursor must be a nextCursor value of an earlier answer');
  }
  if (
    !Array.isArray(decoded) || decoded.length !== 3 || decoded[0] !== VERSION
    || !Number.isSafeInteger(decoded[1]) || (decoded[1] as number) < 0 || (decoded[1] as number) > 2_147_483_647
    || !(decoded[2] === null || (typeof decoded[2] === 'string' && decoded[2].length > 0))
  ) {
    throw invalid('cursor must be a nextCursor value of an earlier answer');
  }
  return { afterId: decoded[1] as number, filter: decoded[2] === null ? {} : { brand: decoded[2] as string } };
}

/**
 * The filters of a cursor request: those the cursor carries. Filters named again in the query
 * must be the same (brand ignoring case, as it matches); a different one is refused rather than
 * silently mixing the pages of two listings.
 */
export function cursorFilter(position: CursorPosition, query: CatalogFilter): CatalogFilter {
  if (query.brand !== undefined && query.brand.toLowerCase() !== position.filter.brand?.toLowerCase()) {
    throw invalid('cursor was made for other filters: drop brand, or start again without cursor');
  }
  return position.filter;
}
