import type { CallerContext } from '../gateway-client/account-api.js';
import { isGatewayError } from '../gateway-client/gateway-error.js';
import { describeGatewayError, fieldErrorsOf, pageStatusFor, type MessageTopic } from '../gateway-client/user-messages.js';
import { redirectTo, type PageHandler, type PageRequest, type PageResponse } from '../http/page.js';
import type { Chrome } from '../pages/layout.js';
import { notice } from '../session/flash.js';
import { isSignedIn } from '../session/session.js';
import { safeNextPath } from './next-path.js';

/** The page frame for this request: its CSRF token, the navigation, and the flash notice if one came. */
export function chromeFor(req: PageRequest, error: string | null = null, fieldErrors?: Record<string, string>): Chrome {
  return {
    csrfToken: req.csrfToken,
    signedIn: isSignedIn(req.session),
    path: req.path,
    notice: req.flash?.kind === 'notice' ? req.flash.message : null,
    error,
    ...(fieldErrors && Object.keys(fieldErrors).length > 0 ? { fieldErrors } : {}),
  };
}

/** A failed form's page frame: the summary at the top, each field's message beside it. */
export const chromeForFailure = (req: PageRequest, failure: Failure | null): Chrome =>
  chromeFor(req, failure?.message ?? null, failure?.fields);

export const callerOf = (req: PageRequest): CallerContext => ({
  requestId: req.requestId,
  log: req.log,
  token: req.session.token,
  clientAddress: req.clientAddress,
  ...(req.userAgent ? { userAgent: req.userAgent } : {}),
});

/**
 * Pages of the account: without a signed-in session the visitor is sent to sign in, and back to
 * the page asked for afterwards (a GET's path only; after a form, back to where the form was).
 */
export const requireSignIn =
  (handler: PageHandler): PageHandler =>
  async (req) => {
    if (isSignedIn(req.session)) return handler(req);
    const next = req.method === 'GET' ? safeNextPath(req.path) : null;
    return redirectTo(next && next !== '/' ? `/sign-in?next=${encodeURIComponent(next)}` : '/sign-in');
  };

/** The gateway no longer accepts the user's token (it was revoked or its signing key rotated): sign in again. */
export const sessionEnded = (): PageResponse =>
  redirectTo('/sign-in', { session: null, flash: notice('Your sign-in has ended. Please sign in again.') });

/**
 * A form field as text, trimmed unless it is a password. Never shortened: the form's size limit
 * bounds it, and a cut password or name would be a different one.
 */
export function field(form: URLSearchParams, name: string, options: { trim?: boolean } = {}): string {
  const value = form.get(name) ?? '';
  return options.trim === false ? value : value.trim();
}

/** A gateway refusal as a page: status and readable message; anything else is a bug and propagates (500). */
export interface Failure {
  status: number;
  message: string;
  headers?: Record<string, string>;
  /** Per form field, when the refusal named fields. */
  fields?: Record<string, string>;
}

/**
 * The user's sign-in was ended (signed out from another browser, a password change): the gateway answers
 * 401 session_ended. Not a failure of the form: the page handler's caller turns it into a sign-out (app.ts).
 */
export const isEndedSession = (err: unknown): boolean => isGatewayError(err) && err.status === 401 && err.body?.code === 'session_ended';

export function failureOf(err: unknown, req: PageRequest, topic: MessageTopic = {}): Failure {
  if (!isGatewayError(err) || isEndedSession(err)) throw err;
  const failure: Failure = { status: pageStatusFor(err), message: describeGatewayError(err, req.requestId, topic) };
  const fields = fieldErrorsOf(err);
  if (Object.keys(fields).length > 0) failure.fields = fields;
  if (err.retryAfterSeconds !== null && (err.status === 429 || err.status === 503))
    failure.headers = { 'Retry-After': String(err.retryAfterSeconds) };
  return failure;
}
