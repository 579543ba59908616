import type { ServerResponse } from 'node:http';
import { COPY_SCRIPT_CSP_SOURCE } from '../pages/copy-script.js';
import { PICKER_SCRIPT_CSP_SOURCE } from '../pages/picker-script.js';

/**
 * Two scripts, each allowed by its hash (the copy buttons; the catalog picker), and styles from our own file only: an
 * injected tag can neither run nor restyle the page. Forms may post only to us; no one may frame
 * us (clickjacking on the revoke buttons).
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  `script-src ${COPY_SCRIPT_CSP_SOURCE} ${PICKER_SCRIPT_CSP_SOURCE}`,
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
  // Our own pages get the Referer (and the browser a real Origin on our form posts: under
  // no-referrer Chromium sends `Origin: null`, which an origin check cannot tell from another
  // site); other sites get nothing, not even our origin, so key ids in our paths never leave.
  res.setHeader('Referrer-Policy', 'same-origin');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
  // Pages show secrets and personal data: never stored by the browser or a proxy. Assets override this.
  res.setHeader('Cache-Control', 'no-store');
  // Only where the cookies are Secure, i.e. the dashboard is served over HTTPS.
  if (httpsOnly) res.setHeader('Strict-Transport-Security', 'max-age=31536000');
}
