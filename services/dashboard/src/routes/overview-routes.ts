import { summarizeToken } from '../account/account-summary.js';
import { showPage, type PageHandler } from '../http/page.js';
import type { RouteDefinition } from '../http/router.js';
import { landingPage } from '../pages/landing-page.js';
import { overviewPage } from '../pages/overview-page.js';
import { isSignedIn } from '../session/session.js';
import { chromeFor, sessionEnded } from './route-kit.js';

/** Who am I: from the token the login gave us, no extra call. Signed out: what this site is. */
export function overviewRoutes(): RouteDefinition<PageHandler>[] {
  return [
    {
      method: 'GET',
      pattern: '/',
      handler: async (req) => {
        if (!isSignedIn(req.session)) return showPage(landingPage(chromeFor(req)));
        const account = summarizeToken(req.session.token);
        return account ? showPage(overviewPage(chromeFor(req), account)) : sessionEnded();
      },
    },
  ];
}
