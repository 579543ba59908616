import type { IncomingHttpHeaders } from 'node:http';

/**
 * A second line behind the CSRF token (and SameSite=Strict): refuse a form post that the browser
 * says came from another site. `Sec-Fetch-Site` is sent by current browsers; `Origin` by nearly
 * every browser on a POST. When neither is present (old clients, curl) the CSRF token decides.
 */
export function isCrossSitePost(headers: IncomingHttpHeaders): boolean {
  const fetchSite = headers['sec-fetch-site'];
  if (typeof fetchSite === 'string' && fetchSite !== 'same-origin' && fetchSite !== 'none') return true;
  const origin = headers.origin;
  if (origin === undefined) return false;
  if (typeof origin !== 'string' || origin === 'null') return true;
  try {
    // The host the browser addressed: the same name and port it put in Origin for a same-origin form.
    return new URL(origin).host !== headers.host;
  } catch {
    return true;
  }
}
