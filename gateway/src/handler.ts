import type { IncomingMessage, ServerResponse } from 'node:http';
import { SYSTEM_SCOPE, grantsScope, signContext, type InternalContext } from '@acs/auth';
import { currentPlanType, effectiveRole } from '@acs/contracts';
import { AppError, insufficientScopeError, insufficientUserError, missingApiKeyError, notFound, payloadTooLarge, toAppError } from '@acs/errors';
import { pickRequestId } from '@acs/http';
import type { Logger } from '@acs/logger';
import type { CallerAuthenticator } from './auth/api-key-auth.js';
import type { TokenVerifier, VerifiedToken } from './auth/token-verifier.js';
import type { KeyUsageRecorder } from './auth/key-usage-recorder.js';
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
  maxBodyBytes: number;
  publicEndpoints: ReadonlyMap<string, PublicEndpoint>;
  logger: Logger;
}

const BEARER = /^Bearer ([A-Za-z0-9._~+/=-]+)$/;
const bearerToken = (header: string | undefined): string | null => (header === undefined ? null : (BEARER.exec(header)?.[1] ?? null));

/** A token verification that could not run (identity unreachable) is reported only if the caller passes layer 1. */
type TokenCheck = { token: string | null; verified: VerifiedToken | null; failure: unknown };

/**
 * The gateway's whole pipeline on plain node:http. Checks, in the spec's order: key and secret
 * (401), route (404/405), scope (403), user JWT and current effective role (403), then a signed
 * forward. The key record and the user's authorization record come in one cache round trip.
 * Written without a framework because it runs on every request (ARCHITECTURE.md, decision 1).
 */
export function createGatewayHandler(deps: GatewayHandlerDeps) {
  const { match, authenticate, tokens, usage, upstreams, internalSecret, maxBodyBytes, publicEndpoints, logger } = deps;

  async function checkToken(req: IncomingMessage): Promise<TokenCheck> {
    const token = bearerToken(req.headers.authorization);
    if (!token || !tokens) return { token, verified: null, failure: null };
    try {
      return { token, verified: await tokens.verify(token), failure: null };
    } catch (failure) {
      return { token, verified: null, failure };
    }
  }

  async function handleApi(req: IncomingMessage, res: ServerResponse, url: string, path: string, requestId: string): Promise<void> {
    const method = req.method ?? 'GET';
    const found = match(method, path);
    const needsUser = found.kind === 'found' && found.route.user.kind === 'user';
    const tokenCheck = needsUser ? await checkToken(req) : null;
    const auth = await authenticate(req.headers['x-api-key'], req.headers['x-api-secret'], requestId, tokenCheck?.verified?.userId);
    if (!auth.ok) return sendError(res, missingApiKeyError(), requestId);
    usage.record(auth.record.id);
    if (found.kind === 'none') return sendError(res, notFound(`No route for ${method} ${path}`), requestId);
    if (found.kind === 'wrong-method') {
      return sendError(res, new AppError('method_not_allowed', 'Method not allowed', `${method} is not supported on ${path}`, { headers: { allow: found.allowed.join(', ') } }), requestId);
    }
    const { route } = found;
    const { record } = auth;
    if (!grantsScope(record.scopes, route.scope)) return sendError(res, insufficientScopeError(), requestId);

    const context: Omit<InternalContext, 'expiresAt'> = { requestId, keyId: record.id, scopes: record.scopes, clientIp: req.socket.remoteAddress ?? '' };
    if (route.user.kind === 'user') {
      if (!tokenCheck?.token) return sendError(res, insufficientUserError(), requestId);
      if (!tokens) return sendError(res, notDeployed('identity'), requestId);
      if (tokenCheck.failure) throw tokenCheck.failure;
      const authz = auth.authz;
      if (!tokenCheck.verified || !authz || authz.disabled) return sendError(res, insufficientUserError(), requestId);
      const now = Math.floor(Date.now() / 1000);
      const role = effectiveRole(authz, now);
      if (role < route.user.minRole) return sendError(res, insufficientUserError(), requestId);
      context.userId = authz.userId;
      context.role = role;
      context.planType = currentPlanType(authz, now);
    }

    if (Number(req.headers['content-length'] ?? 0) > maxBodyBytes) return sendError(res, payloadTooLarge(maxBodyBytes), requestId);
    const upstream = upstreams.get(route.upstream);
    if (!upstream) return sendError(res, notDeployed(route.upstream), requestId);
    if (record.scopes.includes(SYSTEM_SCOPE)) {
      logger.info({ audit: 'system_key.request', keyId: record.id, userId: context.userId, requestId, method, path }, 'request with a system:full-access key');
    }
    const signed = signContext(internalSecret, method, url, context);
    forward(req, res, upstream, url, { 'x-acs-context': signed.context, 'x-acs-signature': signed.signature }, requestId, logger);
  }

  async function handle(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void> {
    const url = req.url ?? '/';
    const queryAt = url.indexOf('?');
    const path = queryAt === -1 ? url : url.slice(0, queryAt);
    if (path.startsWith('/api/') || path === '/api') return handleApi(req, res, url, path, requestId);
    const endpoint = req.method === 'GET' || req.method === 'HEAD' ? publicEndpoints.get(path) : undefined;
    if (endpoint) return endpoint(req, res, requestId);
    sendError(res, notFound(`No route for ${req.method} ${path}`), requestId);
  }

  return function gatewayHandler(req: IncomingMessage, res: ServerResponse): void {
    const requestId = pickRequestId(req.headers['x-request-id']);
    handle(req, res, requestId).catch((err: unknown) => {
      const error = toAppError(err);
      if (error.status >= 500) logger.error({ err, requestId }, 'gateway request failed');
      sendError(res, error, requestId);
    });
  };
}
