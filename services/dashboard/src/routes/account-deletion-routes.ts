import type { AccountApi } from '../gateway-client/account-api.js';
import { isGatewayError } from '../gateway-client/gateway-error.js';
import { redirectTo, showPage, type PageHandler, type PageRequest } from '../http/page.js';
import type { RouteDefinition } from '../http/router.js';
import { deleteAccountPage } from '../pages/delete-account-page.js';
import { notice } from '../session/flash.js';
import { callerOf, chromeFor, chromeForFailure, failureOf, field, requireSignIn } from './route-kit.js';

const REFUSED = 'The password or the two-factor code is incorrect. Nothing was deleted.';

async function deleteAccount(api: AccountApi, req: PageRequest) {
  const password = field(req.form, 'password', { trim: false });
  const code = field(req.form, 'code');
  try {
    await api.deleteAccount(callerOf(req), password, code || undefined);
    // Every session of the account ended with it, this browser's too.
    return redirectTo('/sign-in', { session: null, flash: notice('Your account is deleted.') });
  } catch (err) {
    const failure = failureOf(err, req, { unauthorized: REFUSED });
    if (isGatewayError(err) && err.status === 401)
      failure.fields = err.body?.code === 'invalid_two_factor_code' ? { code: REFUSED } : { password: REFUSED };
    return showPage(deleteAccountPage(chromeForFailure(req, failure)), failure.status, failure.headers);
  }
}

/** Deleting the account (issue 32 item 5), signed in and confirmed with the password (and code). */
export function accountDeletionRoutes(api: AccountApi): RouteDefinition<PageHandler>[] {
  return [
    { method: 'GET', pattern: '/account/delete', handler: requireSignIn(async (req) => showPage(deleteAccountPage(chromeFor(req)))) },
    { method: 'POST', pattern: '/account/delete', handler: requireSignIn((req) => deleteAccount(api, req)) },
  ];
}
