const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * A table name that code puts into SQL text (identifiers cannot be parameters) must be a plain
 * lower-case identifier written in code, never a value that came from outside.
 */
export function assertSqlIdentifier(name: string, what: string): string {
  if (!IDENTIFIER.test(name)) throw new Error(`${what} "${name}" is not a plain lower-case SQL identifier`);
  return name;
}
