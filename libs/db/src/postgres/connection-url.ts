/**
 * The database a connection URL names, or undefined when it names none (pg then uses the
 * user's). Decoded exactly as pg-connection-string does (decodeURI, `db=` for socket URLs), so
 * the database we create is the one pg then connects to.
 */
export function databaseNameOf(url: string): string | undefined {
  const parsed = new URL(url);
  const name = parsed.protocol === 'socket:' ? (parsed.searchParams.get('db') ?? '') : decodeURI(parsed.pathname.slice(1));
  return name.length > 0 ? name : undefined;
}

/** The same server, user and options, another database (a plain name such as `postgres`). */
export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  if (parsed.protocol === 'socket:') parsed.searchParams.set('db', database);
  else parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** For log lines and error messages: never print a password. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '<unparseable database URL>';
  }
}

/**
 * CREATE DATABASE takes no parameters, so the name goes in as a quoted identifier: doubled
 * quotes, exactly PostgreSQL's rule. A NUL byte cannot be quoted and is refused.
 */
export function quoteIdentifier(name: string): string {
  if (name.includes('\0')) throw new Error('A database name cannot contain a NUL byte');
  return `"${name.replace(/"/g, '""')}"`;
}
