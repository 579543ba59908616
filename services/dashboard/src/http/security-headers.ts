import type { ServerResponse } from 'node:http';

/**
 * No script at all and styles from our own file only: an injected tag can neither run nor restyle
 * the page. Forms may post only to us; no one may frame us (clickjacking on the revoke buttons).
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'none'",
  "style-src 'self'",
  "img-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** On every response, pages, redirects, errors and assets alike. */
export function setSecurityHeaders(res: ServerResponse, httpsOnly: boolean): void {
  res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
  // Pages show secrets and personal data: never stored by the browser or a proxy. Assets override this.
  res.setHeader('Cache-Control', 'no-store');
  // Only where the cookies are Secure, i.e. the dashboard is served over HTTPS.
  if (httpsOnly) res.setHeader('Strict-Transport-Security', 'max-age=31536000');
}
