import { showPage, type PageHandler } from '../http/page.js';
import type { Chrome } from '../pages/layout.js';
import type { SafeHtml } from '../pages/html.js';
import { messagePage } from '../pages/message-page.js';
import { chromeFor } from './route-kit.js';

/** What identity mails in a link (a base64url token); anything else never reaches a form or the gateway. */
export const MAILED_TOKEN_SHAPE = /^[A-Za-z0-9_-]{1,256}$/;

/**
 * The GET an e-mailed link (a password reset, an address verification) lands on: a token of the
 * right shape goes into the page's form, which the user then posts (a mail scanner fetching the
 * link changes nothing); a cut-off link answers 400 with `invalidTitle`.
 */
export function mailedLinkLanding(invalidTitle: string, page: (chrome: Chrome, token: string) => SafeHtml): PageHandler {
  return async (req) => {
    const token = req.query.get('token') ?? '';
    if (!MAILED_TOKEN_SHAPE.test(token))
      return showPage(messagePage(chromeFor(req), invalidTitle, 'This link is not complete. Ask for a new one.'), 400);
    return showPage(page(chromeFor(req), token));
  };
}
