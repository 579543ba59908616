import type { IncomingHttpHeaders } from 'node:http';

export type PostOrigin = 'same-origin' | 'user-initiated' | 'cross-site' | 'unknown';

const single = (value: string | string[] | undefined): string | undefined => (typeof value === 'string' ? value : undefined);

/** The host (name and port) of an absolute URL, or null for anything else (`null`, garbage). */
function hostOf(url: string): string | null {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.host : null;
  } catch {
    return null;
  }
}

/**
 * Where a form POST came from, as the browser tells it. A second line behind the CSRF token (and
 * SameSite=Strict cookies).
 *
 * 1. `Sec-Fetch-Site` (every current browser sends it and no page can forge it): `same-origin` is
 *    ours; `cross-site` and `same-site` (a sibling subdomain is another application) are not;
 *    `none` means the user started the request themselves (typed, bookmark, resubmitted from
 *    history): no other site can cause that, so the CSRF token alone decides.
 * 2. Without it (older browsers): `Origin`, compared with the Host the browser addressed. `null`
 *    is refused here: without Fetch Metadata we cannot tell a sandboxed frame of another site
 *    from a privacy setting.
 * 3. Without either: `Referer`, likewise (our Referrer-Policy, same-origin, sends it to us).
 * 4. None of them (curl, a client that sends no metadata): unknown; the CSRF token decides.
 *
 * Under the old `Referrer-Policy: no-referrer` Chromium sends `Origin: null` even on same-origin
 * form posts; that is why Sec-Fetch-Site is asked first and the policy is now `same-origin`.
 */
function postOrigin(headers: IncomingHttpHeaders): PostOrigin {
  const fetchSite = single(headers['sec-fetch-site']);
  if (fetchSite !== undefined) {
    if (fetchSite === 'same-origin') return 'same-origin';
    if (fetchSite === 'none') return 'user-initiated';
    return 'cross-site';
  }
  const host = single(headers.host);
  const origin = single(headers.origin);
  if (origin !== undefined) return host !== undefined && hostOf(origin) === host ? 'same-origin' : 'cross-site';
  const referer = single(headers.referer);
  if (referer !== undefined) return host !== undefined && hostOf(referer) === host ? 'same-origin' : 'cross-site';
  return 'unknown';
}

export const isCrossSitePost = (headers: IncomingHttpHeaders): boolean => postOrigin(headers) === 'cross-site';

/**
 * A request on which the browser withheld our SameSite=Strict cookies: it came from another site
 * (a link, a form). Its missing session says nothing about the visitor, so nothing may replace the
 * session cookie they have (a link or a refused form from another site must not sign them out).
 * `same-site` requests do carry Strict cookies: a missing session there is a real absence.
 */
export const cookiesWithheld = (headers: IncomingHttpHeaders): boolean => single(headers['sec-fetch-site']) === 'cross-site';
