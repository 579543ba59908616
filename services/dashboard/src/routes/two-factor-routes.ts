import type { AccountApi } from '../gateway-client/account-api.js';
import { isGatewayError } from '../gateway-client/gateway-error.js';
import { redirectTo, showPage, type PageHandler, type PageRequest } from '../http/page.js';
import type { RouteDefinition } from '../http/router.js';
import { enrollTwoFactorPage, recoveryCodesPage, twoFactorSignInPage } from '../pages/two-factor-pages.js';
import { signedInSession } from '../session/session.js';
import { notice } from '../session/flash.js';
import type { Chrome } from '../pages/layout.js';
import { qrCodeSvg } from '../pages/qr-code.js';
import { manageTwoFactorPage } from '../pages/two-factor-manage-page.js';
import { safeNextPath } from './next-path.js';
import { callerOf, chromeFor, chromeForFailure, failureOf, field, requireSignIn } from './route-kit.js';

const WRONG_CODE = 'The code is wrong or already used. Type the newest code, or sign in again.';
const SIX_DIGITS = /^[0-9]{6}$/;

/** The second step of a sign-in: 6 digits are the app's code, anything else a recovery code. */
async function completeSignIn(api: AccountApi, req: PageRequest) {
  const challenge = field(req.form, 'challenge');
  const typed = field(req.form, 'code').replace(/\s/g, '');
  const next = safeNextPath(field(req.form, 'next'));
  try {
    const login = await api.completeTwoFactorLogin(
      callerOf(req),
      challenge,
      SIX_DIGITS.test(typed) ? { code: typed } : { recoveryCode: typed },
    );
    return redirectTo(next ?? '/', { session: signedInSession(login.token, login.expiresAt) });
  } catch (err) {
    const failure = failureOf(err, req, { unauthorized: WRONG_CODE });
    if (isGatewayError(err) && (err.status === 401 || err.status === 400)) failure.fields = { code: WRONG_CODE };
    return showPage(twoFactorSignInPage(chromeForFailure(req, failure), { challenge, next }), failure.status, failure.headers);
  }
}

const WRONG_PASSWORD_OR_CODE = 'The password or the code is wrong. Two-factor sign-in stays on.';

/** The enrollment page with its QR code (the otpauth:// URI, drawn on the server). */
async function enrollmentPage(chrome: Chrome, enrollment: { secret: string; otpauthUri: string }) {
  return enrollTwoFactorPage(chrome, enrollment, await qrCodeSvg(enrollment.otpauthUri, 'QR code of the key for your authenticator app'));
}

/** On: new recovery codes, or off. A refusal shows the page again with the error beside the form that failed. */
async function manage(api: AccountApi, req: PageRequest, action: 'regenerate' | 'disable') {
  try {
    if (action === 'regenerate') {
      const { recoveryCodes } = await api.regenerateRecoveryCodes(callerOf(req), field(req.form, 'code'));
      return showPage(recoveryCodesPage(chromeFor(req), recoveryCodes, 'New recovery codes'));
    }
    await api.disableTwoFactor(callerOf(req), field(req.form, 'password', { trim: false }), field(req.form, 'disableCode'));
    return redirectTo('/account/two-factor', { flash: notice('Two-factor sign-in is off.') });
  } catch (err) {
    const failure = failureOf(err, req, { unauthorized: action === 'regenerate' ? WRONG_CODE : WRONG_PASSWORD_OR_CODE });
    if (isGatewayError(err) && err.status === 401) {
      const message = action === 'regenerate' ? WRONG_CODE : WRONG_PASSWORD_OR_CODE;
      failure.fields =
        action === 'regenerate' ? { code: message } : err.body?.code === 'invalid_login' ? { password: message } : { disableCode: message };
    }
    return showPage(manageTwoFactorPage(chromeForFailure(req, failure), action), failure.status, failure.headers);
  }
}

async function twoFactorPage(api: AccountApi, req: PageRequest) {
  const account = await api.getAccount(callerOf(req));
  return showPage(account.twoFactorEnabled ? manageTwoFactorPage(chromeFor(req)) : enrollTwoFactorPage(chromeFor(req), null));
}

async function enrollOrConfirm(api: AccountApi, req: PageRequest) {
  const action = field(req.form, 'action');
  if (action === 'regenerate' || action === 'disable') return manage(api, req, action);
  if (action === 'enroll') {
    try {
      return showPage(await enrollmentPage(chromeFor(req), await api.enrollTwoFactor(callerOf(req))));
    } catch (err) {
      const failure = failureOf(err, req);
      return showPage(enrollTwoFactorPage(chromeForFailure(req, failure), null), failure.status, failure.headers);
    }
  }
  const enrollment = { secret: field(req.form, 'secret'), otpauthUri: field(req.form, 'otpauthUri') };
  try {
    const { recoveryCodes } = await api.confirmTwoFactor(callerOf(req), field(req.form, 'code'));
    return showPage(recoveryCodesPage(chromeFor(req), recoveryCodes));
  } catch (err) {
    const failure = failureOf(err, req);
    if (isGatewayError(err) && err.status === 400) failure.fields = { code: WRONG_CODE };
    return showPage(await enrollmentPage(chromeForFailure(req, failure), enrollment), failure.status, failure.headers);
  }
}

/** Two-factor sign-in in the dashboard (issue 32): the code step of a sign-in, and turning it on. */
export function twoFactorRoutes(api: AccountApi): RouteDefinition<PageHandler>[] {
  return [
    { method: 'POST', pattern: '/sign-in/two-factor', handler: (req) => completeSignIn(api, req) },
    {
      method: 'GET',
      pattern: '/account/two-factor',
      handler: requireSignIn((req) => twoFactorPage(api, req)),
    },
    { method: 'POST', pattern: '/account/two-factor', handler: requireSignIn((req) => enrollOrConfirm(api, req)) },
  ];
}
