/** Pages a visitor is never sent back to after signing in. */
const NOT_A_DESTINATION = new Set(['/sign-in', '/sign-out', '/register']);

/**
 * Where to go after signing in: one of our own paths, or null. Only a plain absolute path of the
 * characters our routes use: no scheme or host, no `//` or `/\` (which browsers read as another
 * host), no query, no dot segments, so the redirect can never leave this site.
 */
export function safeNextPath(candidate: string | null | undefined): string | null {
  if (typeof candidate !== 'string' || candidate.length > 200) return null;
  if (!/^\/(?:[A-Za-z0-9_-]+(?:\/[A-Za-z0-9_-]+)*)?$/.test(candidate)) return null;
  return NOT_A_DESTINATION.has(candidate) ? null : candidate;
}
