import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { pickRequestId, type ClientAddressResolver } from '@acs/http';
import type { Logger } from '@acs/logger';
import type { AccountApi } from './gateway-client/account-api.js';
import type { GatewayClient } from './gateway-client/gateway-client.js';
import type { PageHandler, PageRequest, PageResponse } from './http/page.js';
import { isEndedSession, sessionEnded } from './routes/route-kit.js';
import { createRouter } from './http/router.js';
import { admitPost } from './http/post-gate.js';
import { cookiesWithheld } from './http/same-origin.js';
import { setSecurityHeaders } from './http/security-headers.js';
import { sendHtml, sendPage } from './http/send.js';
import { arrivalPage } from './pages/arrival-page.js';
import { messagePage } from './pages/message-page.js';
import { authRoutes } from './routes/auth-routes.js';
import { deviceRoutes } from './routes/device-routes.js';
import { createFixedRoutes } from './routes/fixed-routes.js';
import { keyPageRoutes } from './routes/key-page-routes.js';
import { keyRoutes } from './routes/key-routes.js';
import { overviewRoutes } from './routes/overview-routes.js';
import { subscriptionRoutes } from './routes/subscription-routes.js';
import { passwordRoutes } from './routes/password-routes.js';
import { verificationRoutes } from './routes/verification-routes.js';
import { twoFactorRoutes } from './routes/two-factor-routes.js';
import { exportRoutes } from './routes/export-routes.js';
import { accountDeletionRoutes } from './routes/account-deletion-routes.js';
import { sessionRoutes } from './routes/session-routes.js';
import { activityRoutes } from './routes/activity-routes.js';
import { webhookRoutes } from './routes/webhook-routes.js';
import type { Flash } from './session/flash.js';
import type { SessionCookies } from './session/session-cookies.js';
import { anonymousSession, isSignedIn, type Session } from './session/session.js';

export interface DashboardAppDeps {
  logger: Logger;
  api: AccountApi;
  gateway: Pick<GatewayClient, 'gatewayReadiness'>;
  cookies: SessionCookies;
  /** Cookies are Secure: the dashboard is served over HTTPS (also turns on HSTS). */
  cookieSecure: boolean;
  stylesheet: Buffer;
  icon: Buffer;
  clientAddress: ClientAddressResolver;
  /** The gateway's address as the users' applications reach it (the snippet shown with a new key). */
  publicGatewayUrl: string;
  /** KEY_MAX_LIFETIME_DAYS, as the keys service applies it (absent or null: keys may never expire). */
  maxKeyLifetimeDays?: number | null;
  /** `npm start` without SMTP: identity's dev mailbox file, shown to local visitors at /dev/mailbox (absent: no such page). */
  devMailboxFile?: string | null;
}

/** A page whose gateway call found the user's session ended (from another browser, a password change): signed out here too. */
async function handleSigningOutEnded(handler: PageHandler, request: PageRequest): Promise<PageResponse> {
  try {
    return await handler(request);
  } catch (err) {
    if (isEndedSession(err)) return sessionEnded();
    throw err;
  }
}

const parseUrl = (url: string | undefined): URL => new URL(url ?? '/', 'http://dashboard.invalid');
const pathOf = (url: string | undefined): string => parseUrl(url).pathname;

/** Every page of the dashboard, by method and path. */
function pageRouter(deps: DashboardAppDeps) {
  const { api } = deps;
  return createRouter<PageHandler>([
    ...authRoutes(api),
    ...overviewRoutes(api),
    ...keyRoutes(api, deps.publicGatewayUrl, deps.maxKeyLifetimeDays ?? null),
    ...keyPageRoutes(api, deps.publicGatewayUrl),
    ...subscriptionRoutes(api),
    ...deviceRoutes(api),
    ...passwordRoutes(api, deps.devMailboxFile ?? null),
    ...verificationRoutes(api),
    ...twoFactorRoutes(api),
    ...exportRoutes(api),
    ...accountDeletionRoutes(api),
    ...sessionRoutes(api),
    ...activityRoutes(api),
    ...webhookRoutes(api),
  ]);
}

type PageRouter = ReturnType<typeof pageRouter>;

/** What serving one page request knows: the request, its session (stored: as it came in, if valid) and its log. */
interface PageVisit {
  req: IncomingMessage;
  path: string;
  requestId: string;
  log: Logger;
  stored: Session | null;
  session: Session;
  chrome: { csrfToken: string; signedIn: boolean; path: string };
}

function refusal(visit: PageVisit, status: number, title: string, message: string, headers: Record<string, string> = {}): PageResponse {
  return { status, html: messagePage(visit.chrome, title, message), headers };
}

/**
 * The page's answer: 404 or 405 when no page matches; for a POST, the gate's refusal unless it is
 * admitted; else the handler's answer. `flash` is the one a page view consumed (null for a POST).
 */
async function answerPage(
  deps: DashboardAppDeps,
  router: PageRouter,
  visit: PageVisit,
): Promise<{ response: PageResponse; flash: Flash | null }> {
  const { req, path, session } = visit;
  const match = router.match(req.method ?? 'GET', path);
  if (match.kind === 'not-found')
    return { response: refusal(visit, 404, 'Page not found', 'There is no page at this address.'), flash: null };
  if (match.kind === 'method-not-allowed')
    return {
      response: refusal(visit, 405, 'Not allowed', 'This page does not accept that kind of request.', { Allow: match.allow }),
      flash: null,
    };
  const admission = req.method === 'POST' ? await admitPost(req, (token) => deps.cookies.verifyCsrf(session, token)) : null;
  if (admission && !admission.admitted)
    return { response: refusal(visit, admission.status, admission.title, admission.message, admission.headers), flash: null };
  // Only a page view consumes the flash: it is what the redirect after a form was for.
  const flash = admission ? null : deps.cookies.readFlash(req.headers.cookie, session);
  const response = await handleSigningOutEnded(match.handler, {
    method: req.method ?? 'GET',
    path,
    query: parseUrl(req.url).searchParams,
    params: match.params,
    form: admission?.admitted ? admission.form : new URLSearchParams(),
    session,
    flash,
    csrfToken: visit.chrome.csrfToken,
    requestId: visit.requestId,
    log: visit.log,
    clientAddress: deps.clientAddress(req.socket.remoteAddress, req.headers['x-forwarded-for']),
    ...(req.headers['user-agent'] ? { userAgent: req.headers['user-agent'].slice(0, 512) } : {}),
  });
  return { response, flash };
}

/** The Set-Cookie headers of a page's answer: the session it leaves, a flash set or shown once. */
function answerCookies(cookies: SessionCookies, visit: PageVisit, response: PageResponse, flash: Flash | null): string[] {
  const { req, stored, session } = visit;
  const setCookies: string[] = [];
  // From another site the browser sent no cookie (SameSite=Strict): the visitor may well have a
  // session, so this answer sets none and overwrites none.
  if (cookiesWithheld(req.headers) && !stored) return setCookies;
  // A handler's new session (sign-in), or a fresh anonymous one (sign-out, or none came in).
  const outgoing = response.session !== undefined ? (response.session ?? anonymousSession()) : stored ? null : session;
  if (outgoing) setCookies.push(cookies.sessionCookie(outgoing));
  if (response.flash) setCookies.push(cookies.flashCookie(response.flash, outgoing ?? session));
  else if (flash) setCookies.push(cookies.clearFlashCookie()); // shown once: a created key's secret goes with it
  return setCookies;
}

async function servePage(
  deps: DashboardAppDeps,
  router: PageRouter,
  res: ServerResponse,
  visit: Omit<PageVisit, 'stored' | 'session' | 'chrome'>,
): Promise<void> {
  const { req, path } = visit;
  const { cookies } = deps;
  const stored = cookies.readSession(req.headers.cookie);
  if ((req.method === 'GET' || req.method === 'HEAD') && !stored && cookiesWithheld(req.headers)) {
    // A link from another site: load the page again from here, where the browser sends our cookies.
    const target = parseUrl(req.url);
    // One leading slash only: `//host` (which `/x/..//host` normalizes to) would leave the site.
    return sendPage(res, { status: 200, html: arrivalPage(target.pathname.replace(/^\/+/, '/') + target.search) }, []);
  }
  // Missing, expired or tampered with: a fresh anonymous session, so the visitor is simply signed out.
  const session: Session = stored ?? anonymousSession();
  const full: PageVisit = {
    ...visit,
    stored,
    session,
    chrome: { csrfToken: cookies.csrfToken(session), signedIn: isSignedIn(session), path },
  };
  const { response, flash } = await answerPage(deps, router, full);
  sendPage(res, response, answerCookies(cookies, full, response, flash));
}

/** The 500 page of a request that failed (or, once its answer has started, the connection cut). */
function answerFailure(res: ServerResponse, requestId: string, log: Logger, err: unknown): void {
  log.error({ err }, 'request failed');
  if (res.headersSent) return void res.destroy();
  sendHtml(
    res,
    500,
    messagePage(
      { csrfToken: '', signedIn: false },
      'Something went wrong',
      `The page could not be shown. Please try again (reference ${requestId}).`,
    ),
  );
}

/**
 * The dashboard as a plain node:http handler: security headers, request id and access log on
 * everything; then the probes and the stylesheet; then the pages, where every POST must come from
 * our own pages (same origin, CSRF token of the session) before any handler runs.
 */
export function createDashboardHandler(deps: DashboardAppDeps): RequestListener {
  const router = pageRouter(deps);
  const serveFixed = createFixedRoutes(deps);
  return (req, res) => {
    const started = process.hrtime.bigint();
    const requestId = pickRequestId(req.headers['x-request-id']);
    const log = deps.logger.child({ requestId });
    res.setHeader('X-Request-Id', requestId);
    setSecurityHeaders(res, deps.cookieSecure);
    const path = pathOf(req.url);
    const handled = serveFixed(req, res, path)
      .then((done) => (done ? undefined : servePage(deps, router, res, { req, path, requestId, log })))
      .catch((err: unknown) => answerFailure(res, requestId, log, err));
    void handled.finally(() => {
      // The path only: queries and form bodies (passwords) never reach a log line.
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      log.info({ method: req.method, path, status: res.statusCode, ms: Math.round(ms * 100) / 100 }, 'request');
    });
  };
}
