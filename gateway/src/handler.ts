import type { IncomingMessage, ServerResponse } from 'node:http';
import { SYSTEM_SCOPE, grantsScope, signContext, type InternalContext, type KeyEnvironment } from '@acs/auth';
import { currentPlanType, effectiveRole, type ApiKeyCacheRecord, type AuthzRecord } from '@acs/contracts';
import {
  errorOf,
  insufficientScopeError,
  insufficientUserError,
  methodNotAllowed,
  missingApiKeyError,
  notFound,
  payloadTooLarge,
  toAppError,
  type AppError,
} from '@acs/errors';
import { pickRequestId, type ClientAddressResolver } from '@acs/http';
import type { Logger } from '@acs/logger';
import type { RouteRecorder } from '@acs/metrics';
import type { CallerAuthenticator, LimitRequest } from './auth/api-key-auth.js';
import { claimedUserId } from './auth/claimed-user.js';
import type { TokenVerifier, VerifiedToken } from './auth/token-verifier.js';
import type { KeyUsageRecorder } from './auth/key-usage-recorder.js';
import type { LimitVerdict } from './limits/gcra.js';
import { rateLimitHeaders } from './limits/rate-limit-headers.js';
import type { CountedIn, RateLimiter } from './limits/rate-limiter.js';
import type { AuthRejection, GatewayMetrics } from './metrics/gateway-metrics.js';
import { forward } from './proxy/forward.js';
import { notDeployed } from './proxy/upstream-errors.js';
import type { Upstreams } from './proxy/upstreams.js';
import { sendError } from './respond.js';
import type { RouteMatch } from './routing/route-matcher.js';
import type { RouteSpec as Route } from './routing/route-table.js';
import type { GatewayTracer, RequestTrace } from './tracing/request-trace.js';

/** Endpoints outside /api that answer without a key (ARCHITECTURE.md, decision 8). */
export type PublicEndpoint = (req: IncomingMessage, res: ServerResponse, requestId: string) => Promise<void> | void;

export interface GatewayHandlerDeps {
  match: (method: string, path: string) => RouteMatch;
  authenticate: CallerAuthenticator;
  /** Null while the identity service is not deployed: user routes then answer 503 to a presented token. */
  tokens: TokenVerifier | null;
  usage: KeyUsageRecorder;
  limiter: RateLimiter;
  upstreams: Upstreams;
  /** The client's address for the signed context (X-Forwarded-For from trusted proxies only). */
  clientAddress: ClientAddressResolver;
  maxBodyBytes: number;
  publicEndpoints: ReadonlyMap<string, PublicEndpoint>;
  logger: Logger;
  metrics: GatewayMetrics;
  /** Null while tracing is off: then no request pays more than this null check. */
  tracing: GatewayTracer | null;
}

const BEARER = /^Bearer ([A-Za-z0-9._~+/=-]+)$/;
const bearerToken = (header: string | undefined): string | null => (header === undefined ? null : (BEARER.exec(header)?.[1] ?? null));

/** Whether the gateway wrote the answer itself (counted when the pipeline returns) or forwarded it (counted by the exchange when it ends). */
type Outcome = 'answered' | 'forwarded';
/** A step either refuses (the answer is written) or lets the request go on. */
type Step = Outcome | undefined;

const isApiPath = (path: string): boolean => path.startsWith('/api/') || path === '/api';

/** The spec's bodies for each refusal: 401 for the key, 403 for the scope and for the user requirement. */
const REFUSALS: Record<AuthRejection, () => AppError> = {
  api_key: missingApiKeyError,
  scope: insufficientScopeError,
  user: insufficientUserError,
};

/** One /api request as it moves through the steps; each step fills in what the next ones need. */
interface ApiExchange {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly requestId: string;
  readonly url: string;
  readonly path: string;
  readonly method: string;
  readonly found: RouteMatch;
  readonly recorder: RouteRecorder;
  readonly startedMs: number;
  /** The request's spans; null while tracing is off. */
  readonly trace: RequestTrace | null;
  /** The Bearer token of a user route, unverified until authorizeUser. */
  token: string | null;
  /** The user the token claims (unverified): names the authorization record read with the key. */
  claimedUserId: number | undefined;
  /** The token's earlier verification, if any: the user, null once expired, undefined when never verified. */
  remembered: VerifiedToken | null | undefined;
  /** Set by authenticateKey. */
  record: ApiKeyCacheRecord | null;
  authz: AuthzRecord | null;
  environment: KeyEnvironment;
  /** What the Redis script needs to count the request with its read; null when the request cannot pass (no route, no token). */
  limitRequest: LimitRequest | null;
  /** The limit decision, once made (by the script with the read, or by the limit step). */
  limit: LimitVerdict | null;
  /** Where an admitted request was counted, so a later refusal gives it back; null when it was not. */
  counted: CountedIn | null;
  cacheDown: boolean;
  /** Set by authorizeRoute. */
  route: Route | null;
  context: Omit<InternalContext, 'expiresAt'> | null;
}

/**
 * The gateway's whole pipeline on plain node:http, in the spec's order: authenticate the key
 * (401), authorize the route (404/405, scope 403), authorize the user (JWT and current effective
 * role, 403), forward signed. A caller without a valid key never makes the gateway verify a
 * token. Written without a framework because it runs on every request (ARCHITECTURE.md, decision 1).
 */
export function createGatewayHandler(deps: GatewayHandlerDeps) {
  const { match, authenticate, tokens, usage, limiter, upstreams, clientAddress, maxBodyBytes, publicEndpoints, logger, metrics, tracing } =
    deps;

  function answer(res: ServerResponse, error: AppError, requestId: string): Outcome {
    sendError(res, error, requestId);
    return 'answered';
  }

  function refuse(ex: ApiExchange, reason: AuthRejection): Outcome {
    metrics.authRejected(reason);
    // Counted with the read, then refused (a token that failed verification): it must not count.
    if (ex.counted && ex.record) {
      const windows = limiter.windowsFor(ex.record, ex.environment);
      if (windows) limiter.refund(ex.req.headers['x-api-key'] as string, ex.record, windows, ex.counted);
      ex.counted = null;
    }
    return answer(ex.res, REFUSALS[reason](), ex.requestId);
  }

  /**
   * Step 1: the key and its secret. For a user route the token is only peeked at (no signature
   * check), so the user's authorization record comes in the same Redis round trip as the key's.
   */
  async function authenticateKey(ex: ApiExchange): Promise<Step> {
    if (ex.found.kind === 'found' && ex.found.route.user.kind === 'user') {
      ex.token = bearerToken(ex.req.headers.authorization);
      if (ex.token && tokens) {
        ex.remembered = tokens.remembered(ex.token);
        ex.claimedUserId = ex.remembered === undefined ? claimedUserId(ex.token) : (ex.remembered?.userId ?? undefined);
      }
    }
    // Only a request that can pass every check is counted with the read (404/405, or a user route without a usable token, cannot).
    if (
      ex.found.kind === 'found' &&
      (ex.found.route.user.kind !== 'user' || (ex.token !== null && tokens !== null && ex.remembered !== null))
    ) {
      ex.limitRequest = limiter.requestFor(ex.found.route);
    }
    const auth = await authenticate(
      ex.req.headers['x-api-key'],
      ex.req.headers['x-api-secret'],
      ex.requestId,
      ex.claimedUserId,
      ex.limitRequest,
      ex.trace,
    );
    if (!auth.ok) return refuse(ex, 'api_key');
    usage.record(auth.record.id);
    ex.record = auth.record;
    ex.authz = auth.authz;
    ex.environment = auth.environment;
    ex.limit = auth.limit;
    ex.counted = auth.limit?.admitted ? 'redis' : null;
    ex.cacheDown = auth.cacheDown;
    return undefined;
  }

  /** Step 2: the route exists for this method (404/405) and the key has its scope (403). */
  function authorizeRoute(ex: ApiExchange, record: ApiKeyCacheRecord): Step {
    const { found } = ex;
    if (found.kind === 'none') return answer(ex.res, notFound(`No route for ${ex.method} ${ex.path}`), ex.requestId);
    if (found.kind === 'wrong-method') {
      return answer(ex.res, methodNotAllowed(found.allowed, `${ex.method} is not supported on ${ex.path}`), ex.requestId);
    }
    if (!grantsScope(record.scopes, found.route.scope)) return refuse(ex, 'scope');
    ex.route = found.route;
    // The service's own web application (a system key) says which browser it acts for, as a trusted proxy would.
    const clientIp = clientAddress(ex.req.socket.remoteAddress, ex.req.headers['x-forwarded-for'], record.scopes.includes(SYSTEM_SCOPE));
    ex.context = { requestId: ex.requestId, keyId: record.id, scopes: record.scopes, clientIp };
    return undefined;
  }

  /**
   * Step 3, on user routes: the token verified (only now that the key passed; a token seen before
   * is answered without an await), the user enabled and of the route's current effective role.
   */
  function authorizeUser(ex: ApiExchange, route: Route): Step | Promise<Step> {
    if (route.user.kind !== 'user') return undefined;
    if (!ex.token) return refuse(ex, 'user');
    if (!tokens) {
      metrics.upstreamFailed('identity', 503);
      return answer(ex.res, notDeployed('identity'), ex.requestId);
    }
    if (ex.remembered !== undefined) return admitUser(ex, route.user.minRole, ex.remembered);
    const { minRole } = route.user;
    return tokens.verify(ex.token).then((verified) => admitUser(ex, minRole, verified));
  }

  function admitUser(ex: ApiExchange, minRole: number, verified: VerifiedToken | null): Step {
    const { authz, context } = ex;
    // The authorization record was read for the claimed user: it must be the verified one.
    if (!verified || verified.userId !== ex.claimedUserId || !authz || authz.disabled || !context) return refuse(ex, 'user');
    const now = Math.floor(Date.now() / 1000);
    const role = effectiveRole(authz, now);
    if (role < minRole) return refuse(ex, 'user');
    context.userId = authz.userId;
    context.role = role;
    context.planType = currentPlanType(authz, now);
    return undefined;
  }

  /**
   * Step 4: the key's rate limits, only now that every other check passed. Usually decided already by the
   * script that read the key (same round trip); otherwise by the limiter (cache miss, Redis outage, embedded).
   * Every answer from here on carries the RateLimit headers; a refusal is 429 before any service is called.
   */
  function applyLimits(ex: ApiExchange, record: ApiKeyCacheRecord, route: Route): Step | Promise<Step> {
    const windows = limiter.windowsFor(record, ex.environment);
    if (windows === null) return undefined;
    if (ex.limit !== null) return admitOrRefuse(ex, route, windows, ex.limit);
    const retry = {
      request: ex.limitRequest ?? limiter.requestFor(route),
      secret: ex.req.headers['x-api-secret'] as string,
      environment: ex.environment,
      userId: ex.claimedUserId,
    };
    return limiter.decide(ex.req.headers['x-api-key'] as string, record, windows, ex.cacheDown, retry).then(({ verdict, counted }) => {
      if (verdict.admitted) ex.counted = counted;
      return admitOrRefuse(ex, route, windows, verdict);
    });
  }

  function admitOrRefuse(ex: ApiExchange, route: Route, windows: Parameters<typeof rateLimitHeaders>[0], verdict: LimitVerdict): Step {
    const headers = rateLimitHeaders(windows, verdict);
    if (verdict.admitted) {
      for (const name in headers) ex.res.setHeader(name, headers[name]!);
      return undefined;
    }
    metrics.rateLimited(route);
    const seconds = Math.max(1, verdict.retryAfterSeconds);
    return answer(
      ex.res,
      errorOf('too_many_requests', `This API key's rate limit is reached; retry in ${seconds} s`, { headers }),
      ex.requestId,
    );
  }

  /** Step 5: the body's declared size, the upstream deployed, then the signed context and the forward. */
  function forwardSigned(ex: ApiExchange, record: ApiKeyCacheRecord, route: Route, context: Omit<InternalContext, 'expiresAt'>): Outcome {
    const { req, res, requestId, method, url } = ex;
    if (Number(req.headers['content-length'] ?? 0) > maxBodyBytes) return answer(res, payloadTooLarge(maxBodyBytes), requestId);
    const upstream = upstreams.get(route.upstream);
    if (!upstream) {
      metrics.upstreamFailed(route.upstream, 503);
      return answer(res, notDeployed(route.upstream), requestId);
    }
    if (record.scopes.includes(SYSTEM_SCOPE)) {
      logger.info(
        { audit: 'system_key.request', keyId: record.id, userId: context.userId, requestId, method, path: ex.path },
        'request with a system:full-access key',
      );
    }
    if (ex.trace) Object.assign(context, ex.trace.forwarding(upstream.name, upstream.origin, method, route.path));
    const signed = signContext(upstream.internalSecret, route.upstream, method, url, context);
    forward(
      req,
      res,
      upstream,
      url,
      { 'x-acs-context': signed.context, 'x-acs-signature': signed.signature },
      {
        requestId,
        logger,
        metrics,
        recorder: ex.recorder,
        startedMs: ex.startedMs,
        maxBodyBytes,
        usage,
        keyId: record.id,
        trace: ex.trace,
      },
    );
    return 'forwarded';
  }

  async function handleApi(ex: ApiExchange): Promise<Outcome> {
    const keyRefusal = await authenticateKey(ex);
    if (keyRefusal) return keyRefusal;
    const record = ex.record!;
    const routeRefusal = authorizeRoute(ex, record);
    if (routeRefusal) return routeRefusal;
    const route = ex.route!;
    const pendingUser = authorizeUser(ex, route);
    const userRefusal = pendingUser instanceof Promise ? await pendingUser : pendingUser;
    if (userRefusal !== undefined) return userRefusal;
    const pendingLimit = applyLimits(ex, record, route);
    const limitRefusal = pendingLimit instanceof Promise ? await pendingLimit : pendingLimit;
    if (limitRefusal !== undefined) return limitRefusal;
    return forwardSigned(ex, record, route, ex.context!);
  }

  async function handle(req: IncomingMessage, res: ServerResponse, startedMs: number): Promise<void> {
    const requestId = pickRequestId(req.headers['x-request-id']);
    const url = req.url ?? '/';
    const queryAt = url.indexOf('?');
    const path = queryAt === -1 ? url : url.slice(0, queryAt);
    const method = req.method ?? 'GET';
    // The route is known before anything can fail, so every answer is counted under its pattern.
    const found = isApiPath(path) ? match(method, path) : null;
    const endpoint = found === null && (method === 'GET' || method === 'HEAD') ? publicEndpoints.get(path) : undefined;
    const recorder =
      found?.kind === 'found' ? metrics.route(found.route) : endpoint ? metrics.publicEndpoint(method, path) : metrics.unmatched(method);
    // Only /api requests are traced: probes and the document would fill a collector with noise.
    const requestTrace = tracing !== null && found !== null ? tracing.start(req, method, path, requestId) : null;
    if (requestTrace !== null && found?.kind === 'found') requestTrace.route(method, found.route.path);
    let outcome: Outcome;
    let exchange: ApiExchange | null = null;
    try {
      if (found !== null) {
        exchange = {
          req,
          res,
          requestId,
          url,
          path,
          method,
          found,
          recorder,
          startedMs,
          trace: requestTrace,
          token: null,
          claimedUserId: undefined,
          remembered: undefined,
          record: null,
          authz: null,
          environment: 'live',
          limitRequest: null,
          limit: null,
          counted: null,
          cacheDown: false,
          route: null,
          context: null,
        };
        outcome = await handleApi(exchange);
      } else if (endpoint) {
        await endpoint(req, res, requestId);
        outcome = 'answered';
      } else {
        outcome = answer(res, notFound(`No route for ${method} ${path}`), requestId);
      }
    } catch (err) {
      const error = toAppError(err);
      if (error.status >= 500) logger.error({ err, requestId }, 'gateway request failed');
      outcome = answer(res, error, requestId);
    }
    if (outcome === 'answered') {
      recorder.observe(res.statusCode, (performance.now() - startedMs) / 1000);
      requestTrace?.end(res.statusCode);
      // The key's usage counts every answer once its key and secret passed (forwarded ones when they end, in forward.ts).
      if (exchange?.record) usage.count(exchange.record.id, res.statusCode);
    }
  }

  // Made once: a per-request closure here would cost an allocation on every request.
  const reportUnexpected = (err: unknown): void => logger.error({ err }, 'gateway request failed while answering');

  return function gatewayHandler(req: IncomingMessage, res: ServerResponse): void {
    handle(req, res, performance.now()).catch(reportUnexpected);
  };
}
