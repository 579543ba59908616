import type { IncomingMessage } from 'node:http';
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  isSpanContextValid,
  propagation,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { ATTR, tracerFor } from '@acs/tracing';

/**
 * The gateway's spans, made by hand on its node:http pipeline (no node:http instrumentation: the
 * gateway knows the route, the request id and the upstream, and passes its context explicitly, so it
 * needs no AsyncLocalStorage on its hot path). Per /api request: a SERVER span, a CLIENT span for
 * its Redis round trip, a CLIENT span for the call to the service. Only the SERVER span is made for a
 * request the sampler drops (a non-recording one, nothing exported), and its traceparent still goes to
 * the service, so the service drops it too.
 */
export class GatewayTracer {
  readonly #tracer: Tracer = tracerFor('gateway');

  /**
   * `trustIncoming` (TRACE_TRUST_INCOMING): a client's traceparent becomes the parent; otherwise it is only
   * a link and the gateway starts a new trace (a client must not choose trace ids or the sampling decision).
   * `redis`: the attributes of the Redis server the gateway reads, null for the in-process cache.
   */
  constructor(
    private readonly trustIncoming: boolean,
    private readonly redis: Attributes | null,
  ) {}

  start(req: IncomingMessage, method: string, path: string, requestId: string): RequestTrace {
    let parent = ROOT_CONTEXT;
    let links: Link[] | undefined;
    if (req.headers.traceparent !== undefined) {
      // A malformed traceparent extracts to no span context and is ignored.
      const incoming = propagation.extract(ROOT_CONTEXT, req.headers);
      const client = trace.getSpanContext(incoming);
      if (client && isSpanContextValid(client)) {
        if (this.trustIncoming) parent = incoming;
        else links = [{ context: client }];
      }
    }
    const span = this.#tracer.startSpan(method, { kind: SpanKind.SERVER, ...(links ? { links } : {}) }, parent);
    if (span.isRecording()) {
      span.setAttributes({
        [ATTR.httpMethod]: method,
        [ATTR.urlPath]: path,
        [ATTR.urlScheme]: 'http',
        [ATTR.requestId]: requestId,
      });
      if (req.socket.remoteAddress) span.setAttribute(ATTR.clientAddress, req.socket.remoteAddress);
    }
    return new RequestTrace(this.#tracer, span, this.redis);
  }
}

/** W3C traceparent of a span: version 00, trace id, span id, flags (01 sampled). */
function traceparentOf(span: Span): string {
  const { traceId, spanId, traceFlags } = span.spanContext();
  return `00-${traceId}-${spanId}-0${(traceFlags & 1).toString(16)}`;
}

/** One request's spans; each method is a no-op (or nearly) when the sampler dropped the request. */
export class RequestTrace {
  readonly #context: Context;
  #upstream: Span | null = null;

  constructor(
    private readonly tracer: Tracer,
    readonly span: Span,
    private readonly redis: Attributes | null,
  ) {
    this.#context = trace.setSpan(ROOT_CONTEXT, span);
  }

  /** Names the span after the route template once it is known. */
  route(method: string, template: string): void {
    if (!this.span.isRecording()) return;
    this.span.updateName(`${method} ${template}`);
    this.span.setAttribute(ATTR.httpRoute, template);
  }

  /** The span of the per-request Redis round trip (MGET, or the EVALSHA that also counts rate limits); null when not recorded. */
  redisSpan(command: string): Span | null {
    if (this.redis === null || !this.span.isRecording()) return null;
    return this.tracer.startSpan(
      command,
      { kind: SpanKind.CLIENT, attributes: { ...this.redis, [ATTR.dbOperation]: command } },
      this.#context,
    );
  }

  /**
   * Starts the CLIENT span of the forward and returns the trace context the service continues (it goes
   * inside the signed context): the CLIENT span's, or the dropped SERVER span's with its sampled flag off.
   */
  forwarding(upstream: string, origin: string, method: string, template: string): { traceparent: string; tracestate?: string } {
    let span = this.span;
    if (span.isRecording()) {
      const url = new URL(origin);
      span = this.tracer.startSpan(
        `${method} ${template}`,
        {
          kind: SpanKind.CLIENT,
          attributes: {
            [ATTR.httpMethod]: method,
            [ATTR.serverAddress]: url.hostname,
            [ATTR.serverPort]: Number(url.port) || 80,
            'peer.service': upstream,
          },
        },
        this.#context,
      );
      this.#upstream = span;
    }
    const tracestate = span.spanContext().traceState?.serialize();
    return tracestate ? { traceparent: traceparentOf(span), tracestate } : { traceparent: traceparentOf(span) };
  }

  /** Ends the spans with the status the client got (499 when it left first). */
  end(status: number): void {
    const upstream = this.#upstream;
    if (upstream) {
      upstream.setAttribute(ATTR.httpStatus, status);
      if (status >= 500) markFailed(upstream, status);
      upstream.end();
    }
    if (!this.span.isRecording()) return;
    this.span.setAttribute(ATTR.httpStatus, status);
    if (status >= 500) markFailed(this.span, status);
    this.span.end();
  }
}

function markFailed(span: Span, status: number): void {
  span.setAttribute(ATTR.errorType, String(status));
  span.setStatus({ code: SpanStatusCode.ERROR });
}

/** Ends a Redis span; a failure (an outage: the gateway falls back to the services) marks it. */
export function endRedisSpan(span: Span | null, failed: unknown): void {
  if (span === null) return;
  if (failed !== undefined) {
    span.setAttribute(ATTR.errorType, failed instanceof Error ? failed.name : 'Error');
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}
