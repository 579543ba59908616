/** A field's value as the trail stores it: jsonb has no dates, so a Date is its ISO text. */
const storedValue = (value: unknown): unknown => (value instanceof Date ? value.toISOString() : value);

/**
 * What the trail shows of a record (an entry's before and after): the named fields only, since a
 * record also carries what must never reach the trail (a password hash, a key's secret hash), with
 * dates as ISO text.
 */
export function auditView<T extends object>(record: T, fields: readonly (keyof T & string)[]): Record<string, unknown> {
  return Object.fromEntries(fields.map((field) => [field, storedValue(record[field])]));
}
