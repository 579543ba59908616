import { readFile } from 'node:fs/promises';
import type { AccountApi } from '../gateway-client/account-api.js';
import { isGatewayError } from '../gateway-client/gateway-error.js';
import { redirectTo, showPage, type PageHandler, type PageRequest } from '../http/page.js';
import type { RouteDefinition } from '../http/router.js';
import { mailboxPage, type MailboxMessage } from '../pages/mailbox-page.js';
import { messagePage } from '../pages/message-page.js';
import { changePasswordPage, forgotPasswordPage, resetPasswordPage } from '../pages/password-pages.js';
import { notice } from '../session/flash.js';
import { callerOf, chromeFor, chromeForFailure, failureOf, field, requireSignIn } from './route-kit.js';
import { MAILED_TOKEN_SHAPE, mailedLinkLanding } from './mailed-link.js';

const WRONG_CURRENT = 'The current password is incorrect.';
const MAILBOX_SHOWN = 30;

const others = (n: number): string => (n === 1 ? '1 other sign-in was' : `${n} other sign-ins were`);

/** Only this machine: the dev mailbox holds reset links. */
const isLocal = (address: string): boolean => address === '127.0.0.1' || address === '::1' || address === '::ffff:127.0.0.1';

async function readMailbox(file: string): Promise<MailboxMessage[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as MailboxMessage];
      } catch {
        return [];
      }
    })
    .reverse()
    .slice(0, MAILBOX_SHOWN);
}

async function changePassword(api: AccountApi, req: PageRequest) {
  const currentPassword = field(req.form, 'currentPassword', { trim: false });
  const newPassword = field(req.form, 'newPassword', { trim: false });
  try {
    const { endedSessions } = await api.changePassword(callerOf(req), currentPassword, newPassword);
    const message = `Your password is changed.${endedSessions > 0 ? ` ${others(endedSessions)} signed out.` : ''}`;
    return redirectTo('/', { flash: notice(message) });
  } catch (err) {
    const failure = failureOf(err, req, { unauthorized: WRONG_CURRENT });
    if (isGatewayError(err) && err.status === 401) failure.fields = { currentPassword: WRONG_CURRENT };
    return showPage(changePasswordPage(chromeForFailure(req, failure)), failure.status, failure.headers);
  }
}

async function requestReset(api: AccountApi, req: PageRequest) {
  const email = field(req.form, 'email');
  if (!email)
    return showPage(forgotPasswordPage(chromeFor(req, 'Enter your e-mail address.', { email: 'Enter your e-mail address.' })), 400);
  try {
    const { message } = await api.requestPasswordReset(callerOf(req), email);
    return showPage(messagePage(chromeFor(req), 'Check your e-mail', message));
  } catch (err) {
    const failure = failureOf(err, req);
    return showPage(forgotPasswordPage(chromeForFailure(req, failure), email), failure.status, failure.headers);
  }
}

async function completeReset(api: AccountApi, req: PageRequest) {
  const token = field(req.form, 'token');
  const newPassword = field(req.form, 'newPassword', { trim: false });
  try {
    await api.completePasswordReset(callerOf(req), token, newPassword);
    // Every session ended with the reset, this browser's too.
    return redirectTo('/sign-in', { session: null, flash: notice('Your password is changed. Sign in with it.') });
  } catch (err) {
    const failure = failureOf(err, req);
    return showPage(
      resetPasswordPage(chromeForFailure(req, failure), MAILED_TOKEN_SHAPE.test(token) ? token : ''),
      failure.status,
      failure.headers,
    );
  }
}

/** Password change (signed in), reset by e-mail (signed out), and `npm start`'s dev mailbox (issue 32). */
export function passwordRoutes(api: AccountApi, devMailboxFile: string | null): RouteDefinition<PageHandler>[] {
  const routes: RouteDefinition<PageHandler>[] = [
    { method: 'GET', pattern: '/account/password', handler: requireSignIn(async (req) => showPage(changePasswordPage(chromeFor(req)))) },
    { method: 'POST', pattern: '/account/password', handler: requireSignIn((req) => changePassword(api, req)) },
    { method: 'GET', pattern: '/forgot-password', handler: async (req) => showPage(forgotPasswordPage(chromeFor(req))) },
    { method: 'POST', pattern: '/forgot-password', handler: (req) => requestReset(api, req) },
    { method: 'GET', pattern: '/reset-password', handler: mailedLinkLanding('Reset link not valid', resetPasswordPage) },
    { method: 'POST', pattern: '/reset-password', handler: (req) => completeReset(api, req) },
  ];
  if (devMailboxFile) {
    routes.push({
      method: 'GET',
      pattern: '/dev/mailbox',
      handler: async (req) => {
        if (!isLocal(req.clientAddress))
          return showPage(messagePage(chromeFor(req), 'Page not found', 'There is no page at this address.'), 404);
        return showPage(mailboxPage(chromeFor(req), await readMailbox(devMailboxFile)));
      },
    });
  }
  return routes;
}
