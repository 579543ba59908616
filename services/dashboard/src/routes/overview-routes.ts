import { summarizeToken } from '../account/account-summary.js';
import { showPage, type PageHandler } from '../http/page.js';
import type { RouteDefinition } from '../http/router.js';
import { overviewPage } from '../pages/overview-page.js';
import { chromeFor, requireSignIn, sessionEnded } from './route-kit.js';

/** Who am I: from the token the login gave us, no extra call. */
export function overviewRoutes(): RouteDefinition<PageHandler>[] {
  return [
    {
      method: 'GET',
      pattern: '/',
      handler: requireSignIn(async (req) => {
        const account = summarizeToken(req.session.token!);
        return account ? showPage(overviewPage(chromeFor(req), account)) : sessionEnded();
      }),
    },
  ];
}
