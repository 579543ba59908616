import { z } from 'zod';
import type { QueryParameterDoc } from './endpoint.js';

/**
 * A list read newest first, a page at a time, by an opaque cursor (the user's audit trail, a
 * webhook endpoint's deliveries): `cursor` is the nextCursor of an earlier answer, `pageSize`
 * defaults to `defaultSize` and is at most `maxSize`. One definition, so every such list parses
 * and documents the two parameters alike.
 */
export interface CursorPaging {
  /** What a cursor of this list looks like; anything else is 400. */
  pattern: RegExp;
  defaultSize: number;
  maxSize: number;
}

/** The query fields a cursor-paged list parses (spread into its strict query schema beside its own filters). */
export function cursorPageQueryFields({ pattern, defaultSize, maxSize }: CursorPaging) {
  return {
    cursor: z.string().regex(pattern, 'expected the nextCursor of an earlier answer').optional(),
    pageSize: z.coerce.number().int().min(1).max(maxSize).default(defaultSize),
  };
}

/** How the document describes those two parameters; `perPage` says what a page holds ("Entries per page"). */
export function cursorPageParameters({ pattern, defaultSize, maxSize }: CursorPaging, perPage: string): QueryParameterDoc[] {
  return [
    { name: 'cursor', description: 'The nextCursor of an earlier answer (opaque)', schema: { type: 'string', pattern: pattern.source } },
    { name: 'pageSize', description: perPage, schema: { type: 'integer', minimum: 1, maximum: maxSize, default: defaultSize } },
  ];
}
