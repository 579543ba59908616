import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Dispatcher } from 'undici';
import type { Logger } from '@acs/logger';
import { sendError } from '../respond.js';
import { upstreamError } from './upstream-errors.js';
import type { Upstream } from './upstreams.js';

/**
 * Request headers a service may need. An allow-list, not a deny-list: the client's API secret,
 * Authorization and any forged x-acs-* context headers never leave the gateway.
 */
const FORWARDED_REQUEST_HEADERS = ['content-type', 'content-length', 'transfer-encoding', 'accept', 'accept-language', 'idempotency-key', 'if-none-match'] as const;
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'proxy-connection', 'upgrade', 'te', 'trailer']);

function responseHeaders(upstreamHeaders: Dispatcher.StreamFactoryData<ServerResponse>['headers'], requestId: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const name in upstreamHeaders) {
    const value = upstreamHeaders[name];
    if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  }
  out['x-request-id'] = requestId;
  return out;
}

/**
 * Streams the request to the service and its answer back (undici's stream API: no buffering, no
 * intermediate objects). A client that goes away aborts the upstream call; an upstream failure
 * becomes 502/503/504 in the error shape.
 */
export async function forward(
  req: IncomingMessage,
  res: ServerResponse,
  upstream: Upstream,
  url: string,
  contextHeaders: Record<string, string>,
  requestId: string,
  logger: Logger,
): Promise<void> {
  const headers: Record<string, string> = { ...contextHeaders, 'x-request-id': requestId, 'x-forwarded-for': req.socket.remoteAddress ?? '' };
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const value = req.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  const hasBody = headers['content-length'] !== undefined ? headers['content-length'] !== '0' : headers['transfer-encoding'] !== undefined;
  const abort = new AbortController();
  const onClientGone = (): void => {
    if (!res.writableFinished) abort.abort();
  };
  res.once('close', onClientGone);
  try {
    await upstream.pool.stream(
      { path: url, method: req.method as Dispatcher.HttpMethod, headers, body: hasBody ? req : null, signal: abort.signal, opaque: res },
      ({ statusCode, headers: upstreamHeaders, opaque }) => {
        opaque.writeHead(statusCode, responseHeaders(upstreamHeaders, requestId));
        return opaque;
      },
    );
  } catch (err) {
    if (abort.signal.aborted) return; // the client left; nobody to answer
    const error = upstreamError(upstream.name, err);
    logger.warn({ err, requestId, upstream: upstream.name, status: error.status }, 'upstream call failed');
    sendError(res, error, requestId);
  } finally {
    res.off('close', onClientGone);
  }
}
