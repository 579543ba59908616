import type { AccountApi } from '../gateway-client/account-api.js';
import { redirectTo, showPage, type PageHandler } from '../http/page.js';
import type { RouteDefinition } from '../http/router.js';
import { messagePage } from '../pages/message-page.js';
import { verifyEmailPage } from '../pages/verify-email-page.js';
import { notice } from '../session/flash.js';
import { callerOf, chromeFor, failureOf, field, requireSignIn } from './route-kit.js';
import { mailedLinkLanding } from './mailed-link.js';

/** E-mail verification (issue 32): the link's page, and a new link from the overview. */
export function verificationRoutes(api: AccountApi): RouteDefinition<PageHandler>[] {
  return [
    {
      method: 'GET',
      pattern: '/verify-email',
      handler: mailedLinkLanding('Verification link not valid', verifyEmailPage),
    },
    {
      method: 'POST',
      pattern: '/verify-email',
      handler: async (req) => {
        try {
          const { email } = await api.verifyEmail(callerOf(req), field(req.form, 'token'));
          return showPage(messagePage(chromeFor(req), 'Address verified', `Thank you: ${email} is verified.`));
        } catch (err) {
          const failure = failureOf(err, req);
          return showPage(messagePage(chromeFor(req), 'Not verified', failure.message), failure.status, failure.headers);
        }
      },
    },
    {
      method: 'POST',
      pattern: '/account/verification',
      handler: requireSignIn(async (req) => {
        try {
          const { message } = await api.resendVerification(callerOf(req));
          return redirectTo('/', { flash: notice(message) });
        } catch (err) {
          const failure = failureOf(err, req);
          return showPage(messagePage(chromeFor(req), 'Link not sent', failure.message), failure.status, failure.headers);
        }
      }),
    },
  ];
}
