import type { AccountApi } from '../gateway/account-api.js';
import { isGatewayError } from '../gateway/gateway-error.js';
import { redirectTo, showPage, type PageHandler, type PageRequest } from '../http/page.js';
import type { RouteDefinition } from '../http/router.js';
import { registerPage, type RegisterValues } from '../pages/register-page.js';
import { signInPage } from '../pages/sign-in-page.js';
import { notice } from '../session/flash.js';
import { isSignedIn, signedInSession } from '../session/session.js';
import { callerOf, chromeFor, failureOf, field } from './route-kit.js';

const WRONG_CREDENTIALS = 'The e-mail or password is incorrect.';

/** Register, sign in, sign out. Passwords go to the gateway and nowhere else: not logged, never echoed. */
export function authRoutes(api: AccountApi): RouteDefinition<PageHandler>[] {
  const alreadySignedIn = (req: PageRequest) => isSignedIn(req.session);

  async function signIn(req: PageRequest, email: string, password: string) {
    const login = await api.login(callerOf(req), email, password);
    // A new session id at sign-in: a session planted before it (fixation) is worth nothing after.
    return signedInSession(login.token, login.expiresAt);
  }

  return [
    {
      method: 'GET',
      pattern: '/sign-in',
      handler: async (req) => (alreadySignedIn(req) ? redirectTo('/') : showPage(signInPage(chromeFor(req)))),
    },
    {
      method: 'POST',
      pattern: '/sign-in',
      handler: async (req) => {
        const email = field(req.form, 'email');
        const password = field(req.form, 'password', { trim: false });
        if (!email || !password) return showPage(signInPage(chromeFor(req, 'Enter your e-mail and password.'), { email }), 400);
        try {
          return redirectTo('/', { session: await signIn(req, email, password) });
        } catch (err) {
          const failure = failureOf(err, req, { unauthorized: WRONG_CREDENTIALS });
          return showPage(signInPage(chromeFor(req, failure.message), { email }), failure.status, failure.headers);
        }
      },
    },
    {
      method: 'GET',
      pattern: '/register',
      handler: async (req) => (alreadySignedIn(req) ? redirectTo('/') : showPage(registerPage(chromeFor(req)))),
    },
    {
      method: 'POST',
      pattern: '/register',
      handler: async (req) => {
        const values: RegisterValues = { email: field(req.form, 'email'), firstName: field(req.form, 'firstName'), lastName: field(req.form, 'lastName') };
        const password = field(req.form, 'password', { trim: false });
        try {
          await api.register(callerOf(req), { email: values.email!, password, firstName: values.firstName!, lastName: values.lastName! });
        } catch (err) {
          const failure = failureOf(err, req);
          return showPage(registerPage(chromeFor(req, failure.message), values), failure.status, failure.headers);
        }
        try {
          return redirectTo('/', { session: await signIn(req, values.email!, password), flash: notice('Welcome! Your account is ready.') });
        } catch (err) {
          // Registered, but the sign-in did not go through (throttled, service blip): the account exists, so say so.
          req.log.warn({ status: isGatewayError(err) ? err.status : undefined }, 'sign-in right after registration failed');
          return redirectTo('/sign-in', { flash: notice('Your account was created. Please sign in.') });
        }
      },
    },
    {
      method: 'POST',
      pattern: '/sign-out',
      // The JWT cannot be recalled, but the browser forgets it and the session id changes.
      handler: async () => redirectTo('/sign-in', { session: null, flash: notice('You are signed out.') }),
    },
  ];
}
