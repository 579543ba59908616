import type { AccountApi } from '../gateway-client/account-api.js';
import { redirectTo, showPage, type PageHandler, type PageRequest } from '../http/page.js';
import type { RouteDefinition } from '../http/router.js';
import { messagePage } from '../pages/message-page.js';
import { sessionsPage } from '../pages/sessions-page.js';
import { notice } from '../session/flash.js';
import { callerOf, chromeFor, failureOf, requireSignIn } from './route-kit.js';

async function list(api: AccountApi, req: PageRequest) {
  try {
    return showPage(sessionsPage(chromeFor(req), await api.listSessions(callerOf(req))));
  } catch (err) {
    const failure = failureOf(err, req);
    return showPage(messagePage(chromeFor(req), 'Sessions', failure.message), failure.status, failure.headers);
  }
}

async function act(req: PageRequest, change: () => Promise<string>) {
  try {
    return redirectTo('/account/sessions', { flash: notice(await change()) });
  } catch (err) {
    const failure = failureOf(err, req, { notFound: 'That session is not one of yours, or has ended already.' });
    return showPage(messagePage(chromeFor(req), 'Sessions', failure.message), failure.status, failure.headers);
  }
}

/** The user's sign-ins (issue 32): list, end one, end all but this browser. */
export function sessionRoutes(api: AccountApi): RouteDefinition<PageHandler>[] {
  return [
    { method: 'GET', pattern: '/account/sessions', handler: requireSignIn((req) => list(api, req)) },
    {
      method: 'POST',
      pattern: '/account/sessions/{id}/end',
      handler: requireSignIn((req) =>
        act(req, async () => {
          const ended = await api.endSession(callerOf(req), req.params.id ?? '');
          return `The session of ${ended.device} is ended.`;
        }),
      ),
    },
    {
      method: 'POST',
      pattern: '/account/sessions/end-others',
      handler: requireSignIn((req) =>
        act(req, async () => {
          const { ended } = await api.endOtherSessions(callerOf(req));
          return ended === 1 ? '1 other session is ended.' : `${ended} other sessions are ended.`;
        }),
      ),
    },
  ];
}
