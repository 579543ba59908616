import type { IncomingMessage } from 'node:http';
import { FormBodyError, readForm } from './form-body.js';
import { isCrossSitePost } from './same-origin.js';

export type PostAdmission =
  | { admitted: true; form: URLSearchParams }
  | { admitted: false; status: number; title: string; message: string; headers?: Record<string, string> };

/**
 * A POST reaches a page handler only when it comes from one of our own pages: not cross-site by
 * Origin / Sec-Fetch-Site, a plain form body within the limit, and the session's CSRF token.
 * Checked in that order, before any handler (and so before any call to the gateway) runs.
 */
export async function admitPost(req: IncomingMessage, verifyCsrf: (token: string | null) => boolean): Promise<PostAdmission> {
  if (isCrossSitePost(req.headers)) {
    return {
      admitted: false,
      status: 403,
      title: 'Form refused',
      message: 'This form was sent from another site, so it was refused. Nothing was changed.',
    };
  }
  let form: URLSearchParams;
  try {
    form = await readForm(req);
  } catch (err) {
    if (!(err instanceof FormBodyError)) throw err;
    // The rest of the body was not read: this connection cannot carry another request.
    return { admitted: false, status: err.status, title: 'Form refused', message: err.message, headers: { Connection: 'close' } };
  }
  if (!verifyCsrf(form.get('_csrf'))) {
    return {
      admitted: false,
      status: 403,
      title: 'Form expired',
      message: 'This form has expired or did not come from this site. Nothing was changed; reload the page and try again.',
    };
  }
  return { admitted: true, form };
}
