import type { IncomingMessage, ServerResponse } from 'node:http';
import { SYSTEM_SCOPE, grantsScope, signContext } from '@acs/auth';
import { AppError, insufficientScopeError, insufficientUserError, missingApiKeyError, notFound, payloadTooLarge, toAppError } from '@acs/errors';
import { pickRequestId } from '@acs/http';
import type { Logger } from '@acs/logger';
import type { KeyAuthenticator } from './auth/api-key-auth.js';
import { forward } from './proxy/forward.js';
import { notDeployed } from './proxy/upstream-errors.js';
import type { Upstreams } from './proxy/upstreams.js';
import { sendError } from './respond.js';
import type { RouteMatch } from './routing/route-matcher.js';

const BEARER = /^Bearer [A-Za-z0-9._~+/=-]+$/;
const hasBearerToken = (header: string | undefined): boolean => header !== undefined && BEARER.test(header);

/** Endpoints outside /api that answer without a key (ARCHITECTURE.md, decision 8). */
export type PublicEndpoint = (req: IncomingMessage, res: ServerResponse, requestId: string) => Promise<void> | void;

export interface GatewayHandlerDeps {
  match: (method: string, path: string) => RouteMatch;
  authenticate: KeyAuthenticator;
  upstreams: Upstreams;
  internalSecret: string;
  maxBodyBytes: number;
  publicEndpoints: ReadonlyMap<string, PublicEndpoint>;
  logger: Logger;
}

/**
 * The gateway's whole pipeline on plain node:http: layer 1 (key, secret, scope), then the route's
 * user requirement, then a signed forward. Written without a framework because it runs on every
 * request (ARCHITECTURE.md, decision 1).
 */
export function createGatewayHandler(deps: GatewayHandlerDeps) {
  const { match, authenticate, upstreams, internalSecret, maxBodyBytes, publicEndpoints, logger } = deps;

  async function handleApi(req: IncomingMessage, res: ServerResponse, url: string, path: string, requestId: string): Promise<void> {
    const auth = await authenticate(req.headers['x-api-key'], req.headers['x-api-secret'], requestId);
    if (!auth.ok) return sendError(res, missingApiKeyError(), requestId);
    const method = req.method ?? 'GET';
    const found = match(method, path);
    if (found.kind === 'none') return sendError(res, notFound(`No route for ${method} ${path}`), requestId);
    if (found.kind === 'wrong-method') {
      return sendError(res, new AppError('method_not_allowed', 'Method not allowed', `${method} is not supported on ${path}`, { headers: { allow: found.allowed.join(', ') } }), requestId);
    }
    const { route } = found;
    const { record } = auth;
    if (!grantsScope(record.scopes, route.scope)) return sendError(res, insufficientScopeError(), requestId);
    if (route.user.kind === 'user') {
      // A missing JWT is refused as the spec says; verifying a present one needs the identity
      // service (its signing keys), which is not part of this build yet.
      if (!hasBearerToken(req.headers.authorization)) return sendError(res, insufficientUserError(), requestId);
      return sendError(res, notDeployed('identity'), requestId);
    }
    if (Number(req.headers['content-length'] ?? 0) > maxBodyBytes) return sendError(res, payloadTooLarge(maxBodyBytes), requestId);
    const upstream = upstreams.get(route.upstream);
    if (!upstream) return sendError(res, notDeployed(route.upstream), requestId);
    if (record.scopes.includes(SYSTEM_SCOPE)) {
      logger.info({ audit: 'system_key.request', keyId: record.id, requestId, method, path }, 'request with a system:full-access key');
    }
    const signed = signContext(internalSecret, method, url, { requestId, keyId: record.id, scopes: record.scopes });
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
