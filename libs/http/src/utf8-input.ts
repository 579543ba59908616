import { isUtf8 } from 'node:buffer';
import { validationFailed } from '@acs/errors';
import type { ParsedUrlQuery } from 'node:querystring';

/**
 * Bytes that are not UTF-8 are refused with 400, never decoded to U+FFFD: a client that sends
 * "Röhre" in Latin-1 would otherwise store "R�hre" without a word. JSON must be UTF-8 (RFC 8259),
 * and a URL's percent-escapes spell UTF-8 (RFC 3986). readJsonBody checks bodies; parseQuery (via
 * utf8Query) the query of every operation that reads one.
 */
export const NOT_UTF8_MESSAGE = 'Text must be UTF-8';

/** A percent-escape of a byte 0x80-0xFF: only these can spell something that is not UTF-8. */
const HIGH_ESCAPE = /%[89a-fA-F][0-9a-fA-F]/;
/** Consecutive escapes: a character's bytes are always escaped side by side, so each run is checked whole. */
const ESCAPE_RUN = /(?:%[0-9a-fA-F]{2})+/g;

const spellsUtf8 = (pair: string): boolean => {
  for (const run of pair.matchAll(ESCAPE_RUN)) if (!isUtf8(Buffer.from(run[0].replaceAll('%', ''), 'hex'))) return false;
  return true;
};

/** The names of the query parameters whose escapes are not UTF-8 (as URLSearchParams reads the name). */
export function nonUtf8QueryParameters(querystring: string): string[] {
  if (!HIGH_ESCAPE.test(querystring)) return [];
  return querystring
    .split('&')
    .filter((pair) => HIGH_ESCAPE.test(pair) && !spellsUtf8(pair))
    .map((pair) => new URLSearchParams(pair).keys().next().value ?? '');
}

/** What a query is read from: Koa's context (the raw query string and its parsed form). */
export interface QuerySource {
  querystring: string;
  query: ParsedUrlQuery;
}

/** The request's parsed query, after checking that its escapes spell UTF-8 (400 in the error shape otherwise, one detail per parameter). */
export function utf8Query(ctx: QuerySource): ParsedUrlQuery {
  const names = nonUtf8QueryParameters(ctx.querystring);
  if (names.length > 0) {
    throw validationFailed(
      'The request query is not valid UTF-8',
      names.map((name) => ({ path: `query.${name}`, message: NOT_UTF8_MESSAGE })),
    );
  }
  return ctx.query;
}
