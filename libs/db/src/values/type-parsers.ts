import { parseArray } from './parse-array.js';
import { parseTimestamp } from './parse-timestamp.js';

export type TextParser = (text: string) => unknown;

/**
 * int8 (bigint, count(*), bigserial) as a JS number. Ids and counts stay far below 2^53; a value
 * beyond that would silently lose digits, so the query fails instead: select it as `::text`.
 */
function parseInt8(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) {
    throw new RangeError(`int8 value ${text} is outside JavaScript's safe integer range; select it as text`);
  }
  return value;
}

const asText: TextParser = (text) => text;

/** Built-in type OIDs (pg_type.oid), stable across PostgreSQL versions. */
const OID = {
  int8: 20,
  int8Array: 1016,
  numeric: 1700,
  numericArray: 1231,
  date: 1082,
  dateArray: 1182,
  timestamp: 1114,
  timestampArray: 1115,
  timestamptz: 1184,
  timestamptzArray: 1185,
  interval: 1186,
  intervalArray: 1187,
  bytea: 17,
} as const;

/**
 * Where pg and PGlite disagree by default, both use these, so rows look the same on either kind:
 * - int8: number (see parseInt8); pg gives a string, PGlite a number or a bigint.
 * - numeric: string, exact (money, prices); cast to float8 in SQL when a number is wanted.
 * - date: 'YYYY-MM-DD' string; a calendar day has no instant (pg: local midnight, PGlite: UTC).
 * - timestamp, timestamptz: Date (see parseTimestamp).
 * - interval: PostgreSQL's text, e.g. '1 day 02:00:00' (pg gives an object, PGlite text).
 * Everything else keeps the drivers' common defaults: int2/int4/float/oid numbers, booleans,
 * json/jsonb parsed, text/uuid/time strings.
 */
export const SCALAR_PARSERS: Readonly<Record<number, TextParser>> = {
  [OID.int8]: parseInt8,
  [OID.numeric]: asText,
  [OID.date]: asText,
  [OID.timestamp]: parseTimestamp,
  [OID.timestamptz]: parseTimestamp,
  [OID.interval]: asText,
};

/** pg needs array parsers spelled out; PGlite builds them from SCALAR_PARSERS itself. */
export const ARRAY_PARSERS: Readonly<Record<number, TextParser>> = {
  [OID.int8Array]: (text) => parseArray(text, parseInt8),
  [OID.numericArray]: (text) => parseArray(text, asText),
  [OID.dateArray]: (text) => parseArray(text, asText),
  [OID.timestampArray]: (text) => parseArray(text, parseTimestamp),
  [OID.timestamptzArray]: (text) => parseArray(text, parseTimestamp),
  [OID.intervalArray]: (text) => parseArray(text, asText),
};

/** PGlite returns a bare Uint8Array for bytea; pg a Buffer. Buffer on both (it is a Uint8Array). */
export const PGLITE_PARSERS: Readonly<Record<number, TextParser>> = {
  ...SCALAR_PARSERS,
  [OID.bytea]: (text) => Buffer.from(text.slice(2), 'hex'),
};
