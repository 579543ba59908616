import type { ApiKeyView } from '@acs/contracts';
import { accountStatus, daysSince, periodStartOf } from '../account/account-status.js';
import { summarizeToken } from '../account/account-summary.js';
import type { AccountApi } from '../gateway-client/account-api.js';
import { isGatewayError } from '../gateway-client/gateway-error.js';
import { isInsufficientRole } from '../gateway-client/user-messages.js';
import { showPage, type PageHandler, type PageRequest, type PageResponse } from '../http/page.js';
import type { RouteDefinition } from '../http/router.js';
import { landingPage } from '../pages/landing-page.js';
import { overviewPage } from '../pages/overview-page.js';
import { isSignedIn } from '../session/session.js';
import { callerOf, chromeFor, sessionEnded } from './route-kit.js';

/**
 * Signed in: what the user can do now and why, from the token and three questions to the gateway
 * (subscriptions, keys and the quota usage at once, then each key's usage at once). Signed out: what this site is.
 */
export function overviewRoutes(api: AccountApi): RouteDefinition<PageHandler>[] {
  async function overview(req: PageRequest, token: string): Promise<PageResponse> {
    const account = summarizeToken(token);
    if (!account) return sessionEnded();
    const caller = callerOf(req);
    const [subscriptions, keys, quota, me] = await Promise.all([
      api.listSubscriptions(caller).catch(() => null),
      api
        .listKeys(caller)
        .catch((err: unknown): ApiKeyView[] | 'not-allowed' | null =>
          isGatewayError(err) && isInsufficientRole(err) ? 'not-allowed' : null,
        ),
      api.usage(caller).catch(() => null),
      // Unknown (null) when identity cannot be asked: the page then says nothing about the address.
      api.getAccount(caller).catch(() => null),
    ]);
    let usages = null;
    if (Array.isArray(keys)) {
      const now = Date.now();
      const days = daysSince(periodStartOf(subscriptions?.find((s) => s.status === 'active') ?? null, now), now);
      usages = await Promise.all(keys.map((key) => api.keyUsage(caller, key.id, days))).catch(() => null);
    }
    const status = accountStatus({ account, subscriptions, keys, usages });
    return showPage(overviewPage(chromeFor(req), account, status, quota, me ? me.emailVerified : null));
  }

  return [
    {
      method: 'GET',
      pattern: '/',
      handler: async (req) => (isSignedIn(req.session) ? overview(req, req.session.token) : showPage(landingPage(chromeFor(req)))),
    },
  ];
}
