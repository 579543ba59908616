/**
 * `npm start` and the root CLIs get one DATABASE_URL for the whole system; each service owns its
 * own database on that server, named `<database>_<service>` (`acs_keys`, `acs_catalog`, ...; the
 * database part defaults to `acs`). A service started alone uses its DATABASE_URL as it is.
 */
export function serviceDatabaseUrl(rootUrl: string, service: string): string {
  const url = new URL(rootUrl);
  const base = decodeURIComponent(url.pathname.replace(/^\//, '')) || 'acs';
  url.pathname = `/${base}_${service}`;
  return url.toString();
}
