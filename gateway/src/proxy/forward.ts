import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Dispatcher } from 'undici';
import type { Logger } from '@acs/logger';
import { errorOf, payloadTooLarge } from '@acs/errors';
import type { GatewayMetrics } from '../metrics/gateway-metrics.js';
import { sendError } from '../respond.js';
import { isBodyTooLarge, limitStreamedBody } from './body-limit.js';
import { upstreamError } from './upstream-errors.js';
import type { AnswerTap } from '../idempotency/pending-answer.js';
import type { Upstream } from './upstreams.js';

/**
 * Request headers a service may need. An allow-list, not a deny-list: the client's API secret,
 * Authorization and any forged x-acs-* context headers never leave the gateway. Transfer-Encoding
 * is hop-by-hop and undici refuses it as a header (that was the 502 for every chunked body): a
 * body without Content-Length is streamed and undici chunks it again on its own connection.
 */
const FORWARDED_REQUEST_HEADERS = [
  'content-type',
  'content-length',
  'accept',
  'accept-language',
  'idempotency-key',
  'if-none-match',
  // Identity labels a sign-in's session with the device it came from ("Firefox on Linux").
  'user-agent',
] as const;
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'proxy-connection', 'upgrade', 'te', 'trailer']);
const CLIENT_GONE = new Error('client closed the connection');
/** nginx's code for "the client closed the request": counted, so abandoned requests show up, though nobody receives it. */
const CLIENT_CLOSED_REQUEST = 499;

/**
 * What the exchange needs besides the request: who to log as, and the request's end-of-request accounting,
 * called once with the status it ended with (`finish(exchange, deps, status)`, a module-level function, so
 * forwarding costs no closure).
 */
export interface ForwardContext<E = unknown, D = unknown> {
  requestId: string;
  logger: Logger;
  metrics: GatewayMetrics;
  /** MAX_BODY_BYTES: a body streamed without Content-Length is cut off (413) past it. */
  maxBodyBytes: number;
  exchange: E;
  deps: D;
  finish(exchange: E, deps: D, status: number): void;
  /** The body when the gateway has read it already (an Idempotency-Key request); else the request streams. */
  body?: Buffer | undefined;
  /** Watches the answer as it streams (the Idempotency-Key answer to keep); null for every other request. */
  tap?: AnswerTap | null;
  /** Headers the answer carries besides the service's (the RateLimit headers of an admitted request); null: none. */
  answerHeaders?: Record<string, string> | null;
}

/**
 * One object per proxied request, driven by undici's dispatch API: the cheapest path undici has
 * (no intermediate stream or AbortSignal), measured in bench/. Backpressure: a slow client pauses
 * the upstream read. A client that goes away aborts the upstream call.
 */
class ProxyExchange implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | null = null;
  private clientGone = false;
  private statusCode = 0;

  constructor(
    private readonly res: ServerResponse,
    private readonly upstream: Upstream,
    private readonly context: ForwardContext,
  ) {
    res.once('close', this.onClientClose);
  }

  private record(status: number): void {
    const { finish, exchange, deps } = this.context;
    finish(exchange, deps, status);
  }

  private readonly onClientClose = (): void => {
    if (this.res.writableFinished) return;
    this.clientGone = true;
    this.controller?.abort(CLIENT_GONE);
  };

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.clientGone) controller.abort(CLIENT_GONE);
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    const out: Record<string, string | string[]> = {};
    for (const name in headers) {
      const value = headers[name];
      if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
    }
    out['x-request-id'] = this.context.requestId;
    const added = this.context.answerHeaders;
    if (added) for (const name in added) out[name] = added[name]!;
    this.statusCode = statusCode;
    this.context.tap?.start(statusCode, out);
    this.res.writeHead(statusCode, out);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.context.tap?.data(chunk);
    if (!this.res.write(chunk)) {
      controller.pause();
      this.res.once('drain', () => controller.resume());
    }
  }

  onResponseEnd(): void {
    this.res.off('close', this.onClientClose);
    this.res.end();
    this.context.tap?.end();
    this.record(this.statusCode);
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    this.res.off('close', this.onClientClose);
    this.context.tap?.abandon();
    if (this.clientGone) {
      this.record(CLIENT_CLOSED_REQUEST);
      return; // nobody is left to answer
    }
    const { requestId, logger, metrics } = this.context;
    if (isBodyTooLarge(err)) {
      // The client's fault, not the service's; the rest of its body is never read, so the connection must close.
      sendError(
        this.res,
        errorOf('payload_too_large', payloadTooLarge(this.context.maxBodyBytes).message, { headers: { connection: 'close' } }),
        requestId,
        this.context.answerHeaders,
      );
      this.record(413);
      return;
    }
    const error = upstreamError(this.upstream.name, err);
    logger.warn({ err, requestId, upstream: this.upstream.name, status: error.status }, 'upstream call failed');
    sendError(this.res, error, requestId, this.context.answerHeaders); // after headers were sent this destroys the response
    metrics.upstreamFailed(this.upstream.name, error.status);
    this.record(error.status);
  }
}

/**
 * What to stream to the service: a declared body as it comes (node:http holds it to its length,
 * and the handler has checked that length), a chunked one through the byte counter, else nothing.
 */
function requestBody(req: IncomingMessage, declaredLength: string | undefined, maxBodyBytes: number): Dispatcher.DispatchOptions['body'] {
  if (declaredLength !== undefined) return declaredLength === '0' ? null : req;
  return req.headers['transfer-encoding'] !== undefined ? limitStreamedBody(req, maxBodyBytes) : null;
}

/** Streams the request to the service and its answer back; failures become 502/503/504 in the error shape. */
export function forward<E, D>(
  req: IncomingMessage,
  res: ServerResponse,
  upstream: Upstream,
  url: string,
  contextHeaders: Record<string, string>,
  context: ForwardContext<E, D>,
): void {
  // A client that left while the gateway was authenticating (its 'close' has already fired) is not
  // forwarded: the service would do work nobody receives, and the answer, never drained, would hold
  // the pooled connection until the service closed it.
  if (res.destroyed) {
    context.tap?.abandon();
    context.finish(context.exchange, context.deps, CLIENT_CLOSED_REQUEST);
    return;
  }
  const headers: Record<string, string> = contextHeaders;
  headers['x-request-id'] = context.requestId;
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const value = req.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  const { body } = context;
  if (body !== undefined) headers['content-length'] = String(body.length);
  upstream.pool.dispatch(
    {
      path: url,
      method: req.method as Dispatcher.HttpMethod,
      headers,
      body: body !== undefined ? body : requestBody(req, headers['content-length'], context.maxBodyBytes),
    },
    new ProxyExchange(res, upstream, context as ForwardContext),
  );
}
