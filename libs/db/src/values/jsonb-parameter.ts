/**
 * A value for a `$n::jsonb` parameter: the object as JSON text, SQL NULL kept NULL (node-postgres
 * would send a JS null as NULL too, but an object needs the explicit text for the ::jsonb cast,
 * and an array must not go out as a Postgres array).
 */
export function jsonbParameter(value: object | null): string | null {
  return value === null ? null : JSON.stringify(value);
}
