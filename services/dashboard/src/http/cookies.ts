/** Every cookie of the dashboard: never readable by scripts, never sent on cross-site requests. */
export interface CookieOptions {
  secure: boolean;
  /** 0 deletes the cookie. */
  maxAgeSeconds: number;
}

/**
 * With Secure on, the `__Host-` prefix makes the browser refuse the cookie unless it is Secure,
 * Path=/ and has no Domain: a sibling subdomain can then neither set nor shadow it.
 */
export const cookieName = (base: string, secure: boolean): string => (secure ? `__Host-${base}` : base);

export function serializeCookie(name: string, value: string, { secure, maxAgeSeconds }: CookieOptions): string {
  const parts = [`${name}=${value}`, 'Path=/', `Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}`, 'HttpOnly', 'SameSite=Strict'];
  if (secure) parts.push('Secure');
  return parts.join('; ');
}

/** All values per name, in header order: a name may repeat (one cookie set per path or domain). */
export function parseCookies(header: string | undefined): Map<string, string[]> {
  const cookies = new Map<string, string[]>();
  if (!header) return cookies;
  for (const pair of header.split(';')) {
    const at = pair.indexOf('=');
    if (at <= 0) continue;
    const name = pair.slice(0, at).trim();
    const value = pair.slice(at + 1).trim();
    cookies.set(name, [...(cookies.get(name) ?? []), value]);
  }
  return cookies;
}
