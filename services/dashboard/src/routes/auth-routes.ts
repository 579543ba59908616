import type { AccountApi } from '../gateway-client/account-api.js';
import { isGatewayError } from '../gateway-client/gateway-error.js';
import { redirectTo, showPage, type PageHandler, type PageRequest, type PageResponse } from '../http/page.js';
import type { RouteDefinition } from '../http/router.js';
import { registerPage, type RegisterValues } from '../pages/register-page.js';
import { signInPage } from '../pages/sign-in-page.js';
import { twoFactorSignInPage } from '../pages/two-factor-pages.js';
import { notice } from '../session/flash.js';
import { isSignedIn, signedInSession } from '../session/session.js';
import { safeNextPath } from './next-path.js';
import { sessionIdOf } from '../session/token-session.js';
import { callerOf, chromeFor, chromeForFailure, failureOf, field } from './route-kit.js';

const WRONG_CREDENTIALS = 'The e-mail or password is incorrect.';
const SIGN_IN_TO_CONTINUE = 'Please sign in to see that page.';
/**
 * After a registration whose sign-in did not go through, and after a 409: identity may answer a
 * taken e-mail like a new one (or with a uniform 409), so the page says the same in both cases
 * and tells nobody whether the address was registered before.
 */
const REGISTERED_PLEASE_SIGN_IN =
  'Thank you. Please sign in with your e-mail address and password. If you registered with this address before, use the password you chose then.';

const alreadySignedIn = (req: PageRequest) => isSignedIn(req.session);

/** The signed-in session, or the challenge of an account with two-factor sign-in (its code is asked next). */
async function signIn(api: AccountApi, req: PageRequest, email: string, password: string) {
  const login = await api.login(callerOf(req), email, password);
  if ('twoFactorRequired' in login) return { challenge: login.challenge };
  // A new session id at sign-in: a session planted before it (fixation) is worth nothing after.
  return signedInSession(login.token, login.expiresAt);
}

async function showSignIn(req: PageRequest): Promise<PageResponse> {
  const next = safeNextPath(req.query.get('next'));
  if (alreadySignedIn(req)) return redirectTo(next ?? '/');
  const chrome = chromeFor(req);
  if (next && !chrome.notice) chrome.notice = SIGN_IN_TO_CONTINUE;
  return showPage(signInPage(chrome, { next }));
}

async function submitSignIn(api: AccountApi, req: PageRequest): Promise<PageResponse> {
  const email = field(req.form, 'email');
  const password = field(req.form, 'password', { trim: false });
  const next = safeNextPath(field(req.form, 'next'));
  if (!email || !password) {
    const fields: Record<string, string> = {};
    if (!email) fields.email = 'Enter your e-mail address.';
    if (!password) fields.password = 'Enter your password.';
    return showPage(signInPage(chromeFor(req, 'Enter your e-mail and password.', fields), { email, next }), 400);
  }
  try {
    const signedIn = await signIn(api, req, email, password);
    if ('challenge' in signedIn) return showPage(twoFactorSignInPage(chromeFor(req), { challenge: signedIn.challenge, next }));
    return redirectTo(next ?? '/', { session: signedIn });
  } catch (err) {
    const failure = failureOf(err, req, { unauthorized: WRONG_CREDENTIALS });
    // Wrong credentials: said beside the password (which is what is retyped), focused there.
    if (isGatewayError(err) && err.status === 401 && failure.message === WRONG_CREDENTIALS)
      failure.fields = { password: WRONG_CREDENTIALS };
    return showPage(signInPage(chromeForFailure(req, failure), { email, next }), failure.status, failure.headers);
  }
}

async function submitRegistration(api: AccountApi, req: PageRequest): Promise<PageResponse> {
  const values: RegisterValues = {
    email: field(req.form, 'email'),
    firstName: field(req.form, 'firstName'),
    lastName: field(req.form, 'lastName'),
  };
  const password = field(req.form, 'password', { trim: false });
  try {
    await api.register(callerOf(req), { email: values.email!, password, firstName: values.firstName!, lastName: values.lastName! });
  } catch (err) {
    if (isGatewayError(err) && err.status === 409) return redirectTo('/sign-in', { flash: notice(REGISTERED_PLEASE_SIGN_IN) });
    const failure = failureOf(err, req);
    return showPage(registerPage(chromeForFailure(req, failure), values), failure.status, failure.headers);
  }
  try {
    const signedIn = await signIn(api, req, values.email!, password);
    // A new account has no second factor; an existing one (a taken address) signs in on its own page.
    if ('challenge' in signedIn) return redirectTo('/sign-in', { flash: notice(REGISTERED_PLEASE_SIGN_IN) });
    return redirectTo('/', { session: signedIn, flash: notice('Welcome! Your account is ready.') });
  } catch (err) {
    // Registered (or acknowledged), but the sign-in did not go through: throttled, a service
    // blip, or an address that was taken (identity then creates nothing). Send them to sign in.
    req.log.warn({ status: isGatewayError(err) ? err.status : undefined }, 'sign-in right after registration failed');
    return redirectTo('/sign-in', { flash: notice(REGISTERED_PLEASE_SIGN_IN) });
  }
}

/*
 * The token's session is ended at identity (the token is refused from its next request on, wherever
 * it was copied to); the browser forgets it and the session id changes. Best effort: the sign-out
 * never fails because the gateway is away.
 */
async function signOut(api: AccountApi, req: PageRequest): Promise<PageResponse> {
  const sessionId = req.session.token ? sessionIdOf(req.session.token) : null;
  if (sessionId)
    await api.endSession(callerOf(req), sessionId).catch((err: unknown) => req.log.warn({ err }, 'could not end the session at sign-out'));
  return redirectTo('/sign-in', { session: null, flash: notice('You are signed out.') });
}

/** Register, sign in, sign out. Passwords go to the gateway and nowhere else: not logged, never echoed. */
export function authRoutes(api: AccountApi): RouteDefinition<PageHandler>[] {
  return [
    { method: 'GET', pattern: '/sign-in', handler: showSignIn },
    { method: 'POST', pattern: '/sign-in', handler: (req) => submitSignIn(api, req) },
    {
      method: 'GET',
      pattern: '/register',
      handler: async (req) => (alreadySignedIn(req) ? redirectTo('/') : showPage(registerPage(chromeFor(req)))),
    },
    { method: 'POST', pattern: '/register', handler: (req) => submitRegistration(api, req) },
    { method: 'POST', pattern: '/sign-out', handler: (req) => signOut(api, req) },
  ];
}
