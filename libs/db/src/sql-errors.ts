/**
 * The SQLSTATE of a database error, the same on PostgreSQL (pg's DatabaseError) and PGlite,
 * so data-access code can map e.g. a unique violation to a 409 without knowing the kind.
 */
export function sqlStateOf(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null || !('code' in err)) return undefined;
  const { code } = err;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

export const isUniqueViolation = (err: unknown): boolean => sqlStateOf(err) === '23505';
