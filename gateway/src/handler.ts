import type { IncomingMessage, ServerResponse } from 'node:http';
import { notFound, toAppError } from '@acs/errors';
import { pickRequestId } from '@acs/http';
import type { RouteRecorder } from '@acs/metrics';
import { newExchange, type ApiExchange, type Outcome, type PipelineDeps } from './pipeline/exchange.js';
import { finish, type Finishable } from './pipeline/finish.js';
import { runApi } from './pipeline/pipeline.js';
import { sendError } from './respond.js';
import type { RouteMatch } from '@acs/http';
import type { RouteSpec } from './routing/route-table.js';
import type { GatewayTracer, RequestTrace } from './tracing/request-trace.js';

/** Endpoints outside /api that answer without a key (docs/architecture.md, decision 8). */
export type PublicEndpoint = (req: IncomingMessage, res: ServerResponse, requestId: string) => Promise<void> | void;

export interface GatewayHandlerDeps extends PipelineDeps {
  match: (method: string, path: string) => RouteMatch<RouteSpec>;
  publicEndpoints: ReadonlyMap<string, PublicEndpoint>;
  /** Null while tracing is off: then no request pays more than this null check. */
  tracing: GatewayTracer | null;
}

const isApiPath = (path: string): boolean => path.startsWith('/api/') || path === '/api';

/** GET and HEAD endpoints by path; the one POST (a leak report) as `POST <path>`. */
function publicEndpointOf(endpoints: ReadonlyMap<string, PublicEndpoint>, method: string, path: string): PublicEndpoint | undefined {
  if (method === 'GET' || method === 'HEAD') return endpoints.get(path);
  return method === 'POST' ? endpoints.get(`POST ${path}`) : undefined;
}

/** The request's route (known before anything can fail, so every answer is counted under its pattern) and its trace. */
interface Classified {
  found: RouteMatch<RouteSpec> | null;
  endpoint: PublicEndpoint | undefined;
  recorder: RouteRecorder;
  trace: RequestTrace | null;
}

function classify(deps: GatewayHandlerDeps, req: IncomingMessage, method: string, path: string, requestId: string): Classified {
  const found = isApiPath(path) ? deps.match(method, path) : null;
  const endpoint = found === null ? publicEndpointOf(deps.publicEndpoints, method, path) : undefined;
  const { metrics, tracing } = deps;
  const recorder =
    found?.kind === 'found' ? metrics.route(found.route) : endpoint ? metrics.publicEndpoint(method, path) : metrics.unmatched(method);
  // Only /api requests are traced: probes and the document would fill a collector with noise.
  const trace = tracing !== null && found !== null ? tracing.start(req, method, path, requestId) : null;
  if (trace !== null && found?.kind === 'found') trace.route(method, found.route.path);
  return { found, endpoint, recorder, trace };
}

async function handle(deps: GatewayHandlerDeps, req: IncomingMessage, res: ServerResponse, startedMs: number): Promise<void> {
  const requestId = pickRequestId(req.headers['x-request-id']);
  const url = req.url ?? '/';
  const queryAt = url.indexOf('?');
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  const method = req.method ?? 'GET';
  const { found, endpoint, recorder, trace } = classify(deps, req, method, path, requestId);
  let exchange: ApiExchange | null = null;
  let outcome: Outcome = 'answered';
  try {
    if (found !== null) {
      exchange = newExchange(req, res, requestId, url, path, method, found, recorder, startedMs, trace);
      outcome = await runApi(exchange, deps);
    } else if (endpoint) await endpoint(req, res, requestId);
    else sendError(res, notFound(`No route for ${method} ${path}`), requestId);
  } catch (err) {
    const error = toAppError(err);
    if (error.status >= 500) deps.logger.error({ err, requestId }, 'gateway request failed');
    sendError(res, error, requestId, exchange?.limitHeaders);
    outcome = 'answered';
  }
  // A forwarded request is finished by its proxy exchange when the answer ends.
  if (outcome === 'answered') finish(exchange ?? unkeyed(recorder, startedMs, trace), deps.usage, res.statusCode);
}

const unkeyed = (recorder: RouteRecorder, startedMs: number, trace: RequestTrace | null): Finishable => ({
  recorder,
  startedMs,
  trace,
  record: null,
  keyPassed: false,
});

/**
 * The gateway's request handler on plain node:http (docs/architecture.md, decision 1): /api requests go
 * through the pipeline (pipeline/pipeline.ts), a few public endpoints answer without a key, everything
 * else is 404. Written without a framework because it runs on every request.
 */
export function createGatewayHandler(deps: GatewayHandlerDeps) {
  // Made once: a per-request closure here would cost an allocation on every request.
  const reportUnexpected = (err: unknown): void => deps.logger.error({ err }, 'gateway request failed while answering');
  return function gatewayHandler(req: IncomingMessage, res: ServerResponse): void {
    handle(deps, req, res, performance.now()).catch(reportUnexpected);
  };
}
