import type { IncomingMessage, ServerResponse } from 'node:http';
import { SYSTEM_SCOPE, grantsScope, signContext, type InternalContext } from '@acs/auth';
import { currentPlanType, effectiveRole } from '@acs/contracts';
import { AppError, insufficientScopeError, insufficientUserError, missingApiKeyError, notFound, payloadTooLarge, toAppError } from '@acs/errors';
import { pickRequestId, type ClientAddressResolver } from '@acs/http';
import type { Logger } from '@acs/logger';
import type { RouteRecorder } from '@acs/metrics';
import type { CallerAuthenticator } from './auth/api-key-auth.js';
import type { TokenVerifier, VerifiedToken } from './auth/token-verifier.js';
import type { KeyUsageRecorder } from './auth/key-usage-recorder.js';
import type { AuthRejection, GatewayMetrics } from './metrics/gateway-metrics.js';
import { forward } from './proxy/forward.js';
import { notDeployed } from './proxy/upstream-errors.js';
import type { Upstreams } from './proxy/upstreams.js';
import { sendError } from './respond.js';
import type { RouteMatch } from './routing/route-matcher.js';

/** Endpoints outside /api that answer without a key (ARCHITECTURE.md, decision 8). */
export type PublicEndpoint = (req: IncomingMessage, res: ServerResponse, requestId: string) => Promise<void> | void;

export interface GatewayHandlerDeps {
  match: (method: string, path: string) => RouteMatch;
  authenticate: CallerAuthenticator;
  /** Null while the identity service is not deployed: user routes then answer 503 to a presented token. */
  tokens: TokenVerifier | null;
  usage: KeyUsageRecorder;
  upstreams: Upstreams;
  internalSecret: string;
  /** The client's address for the signed context (X-Forwarded-For from trusted proxies only). */
  clientAddress: ClientAddressResolver;
  maxBodyBytes: number;
  publicEndpoints: ReadonlyMap<string, PublicEndpoint>;
  logger: Logger;
  metrics: GatewayMetrics;
}

const BEARER = /^Bearer ([A-Za-z0-9._~+/=-]+)$/;
const bearerToken = (header: string | undefined): string | null => (header === undefined ? null : (BEARER.exec(header)?.[1] ?? null));

/** A token verification that could not run (identity unreachable) is reported only if the caller passes layer 1. */
type TokenCheck = { token: string | null; verified: VerifiedToken | null; failure: unknown };

/** Whether the gateway wrote the answer itself (counted when the pipeline returns) or forwarded it (counted by the exchange when it ends). */
type Outcome = 'answered' | 'forwarded';

const isApiPath = (path: string): boolean => path.startsWith('/api/') || path === '/api';

/** The spec's bodies for each refusal: 401 for the key, 403 for the scope and for the user requirement. */
const REFUSALS: Record<AuthRejection, () => AppError> = { api_key: missingApiKeyError, scope: insufficientScopeError, user: insufficientUserError };

/**
 * The gateway's whole pipeline on plain node:http. Checks, in the spec's order: key and secret
 * (401), route (404/405), scope (403), user JWT and current effective role (403), then a signed
 * forward. The key record and the user's authorization record come in one cache round trip.
 * Written without a framework because it runs on every request (ARCHITECTURE.md, decision 1).
 */
export function createGatewayHandler(deps: GatewayHandlerDeps) {
  const { match, authenticate, tokens, usage, upstreams, internalSecret, clientAddress, maxBodyBytes, publicEndpoints, logger, metrics } = deps;

  function answer(res: ServerResponse, error: AppError, requestId: string): Outcome {
    sendError(res, error, requestId);
    return 'answered';
  }

  function refuse(res: ServerResponse, reason: AuthRejection, requestId: string): Outcome {
    metrics.authRejected(reason);
    return answer(res, REFUSALS[reason](), requestId);
  }

  /** Synchronous for a token seen before (the usual case), so the request does not wait a turn for it. */
  function checkToken(req: IncomingMessage): TokenCheck | Promise<TokenCheck> {
    const token = bearerToken(req.headers.authorization);
    if (!token || !tokens) return { token, verified: null, failure: null };
    const remembered = tokens.remembered(token);
    if (remembered !== undefined) return { token, verified: remembered, failure: null };
    return tokens.verify(token).then(
      (verified) => ({ token, verified, failure: null }),
      (failure: unknown) => ({ token, verified: null, failure }),
    );
  }

  async function handleApi(req: IncomingMessage, res: ServerResponse, url: string, path: string, method: string, found: RouteMatch, requestId: string, recorder: RouteRecorder, startedMs: number): Promise<Outcome> {
    const needsUser = found.kind === 'found' && found.route.user.kind === 'user';
    let tokenCheck = needsUser ? checkToken(req) : null;
    if (tokenCheck instanceof Promise) tokenCheck = await tokenCheck;
    const auth = await authenticate(req.headers['x-api-key'], req.headers['x-api-secret'], requestId, tokenCheck?.verified?.userId);
    if (!auth.ok) return refuse(res, 'api_key', requestId);
    usage.record(auth.record.id);
    if (found.kind === 'none') return answer(res, notFound(`No route for ${method} ${path}`), requestId);
    if (found.kind === 'wrong-method') {
      return answer(res, new AppError('method_not_allowed', 'Method not allowed', `${method} is not supported on ${path}`, { headers: { allow: found.allowed.join(', ') } }), requestId);
    }
    const { route } = found;
    const { record } = auth;
    if (!grantsScope(record.scopes, route.scope)) return refuse(res, 'scope', requestId);

    const isSystemKey = record.scopes.includes(SYSTEM_SCOPE);
    // The service's own web application (a system key) says which browser it acts for, as a trusted proxy would.
    const clientIp = clientAddress(req.socket.remoteAddress, req.headers['x-forwarded-for'], isSystemKey);
    const context: Omit<InternalContext, 'expiresAt'> = { requestId, keyId: record.id, scopes: record.scopes, clientIp };
    if (route.user.kind === 'user') {
      if (!tokenCheck?.token) return refuse(res, 'user', requestId);
      if (!tokens) {
        metrics.upstreamFailed('identity', 503);
        return answer(res, notDeployed('identity'), requestId);
      }
      if (tokenCheck.failure) throw tokenCheck.failure;
      const authz = auth.authz;
      if (!tokenCheck.verified || !authz || authz.disabled) return refuse(res, 'user', requestId);
      const now = Math.floor(Date.now() / 1000);
      const role = effectiveRole(authz, now);
      if (role < route.user.minRole) return refuse(res, 'user', requestId);
      context.userId = authz.userId;
      context.role = role;
      context.planType = currentPlanType(authz, now);
    }

    if (Number(req.headers['content-length'] ?? 0) > maxBodyBytes) return answer(res, payloadTooLarge(maxBodyBytes), requestId);
    const upstream = upstreams.get(route.upstream);
    if (!upstream) {
      metrics.upstreamFailed(route.upstream, 503);
      return answer(res, notDeployed(route.upstream), requestId);
    }
    if (isSystemKey) {
      logger.info({ audit: 'system_key.request', keyId: record.id, userId: context.userId, requestId, method, path }, 'request with a system:full-access key');
    }
    const signed = signContext(internalSecret, method, url, context);
    forward(req, res, upstream, url, { 'x-acs-context': signed.context, 'x-acs-signature': signed.signature }, { requestId, logger, metrics, recorder, startedMs, maxBodyBytes });
    return 'forwarded';
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
    const recorder = found?.kind === 'found' ? metrics.route(found.route) : endpoint ? metrics.publicEndpoint(method, path) : metrics.unmatched(method);
    let outcome: Outcome;
    try {
      if (found !== null) {
        outcome = await handleApi(req, res, url, path, method, found, requestId, recorder, startedMs);
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
    if (outcome === 'answered') recorder.observe(res.statusCode, (performance.now() - startedMs) / 1000);
  }

  // Made once: a per-request closure here would cost an allocation on every request.
  const reportUnexpected = (err: unknown): void => logger.error({ err }, 'gateway request failed while answering');

  return function gatewayHandler(req: IncomingMessage, res: ServerResponse): void {
    handle(req, res, performance.now()).catch(reportUnexpected);
  };
}
