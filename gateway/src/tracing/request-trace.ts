import type { IncomingMessage } from 'node:http';
import {
  ROOT_CONTEXT,
  SpanKind,
  isSpanContextValid,
  propagation,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { ATTR, markSpanFailed, presetTraceId, sampleRoot, tracerFor } from '@acs/tracing';

/**
 * The gateway's spans, made by hand on its node:http pipeline (no node:http instrumentation: the
 * gateway knows the route, the request id and the upstream, and passes its context explicitly, so it
 * needs no AsyncLocalStorage on its hot path). Per /api request: a SERVER span, a CLIENT span for
 * its Redis round trip, a CLIENT span for the call to the service. A new trace's sampling decision is
 * made first, without the SDK (sampleRoot, libs/tracing/src/root-sampling.ts): a request the sampler
 * drops makes no span at all, only its ids, and its traceparent (flag 00) still goes to the service,
 * so the service drops it too.
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
    if (parent === ROOT_CONTEXT) {
      const root = sampleRoot();
      if (root !== null && !root.sampled) return new DroppedTrace(root.traceId, root.spanId);
      // Kept: the SDK's span gets the id just sampled on, and its sampler (the same rule) agrees.
      if (root !== null) presetTraceId(root.traceId);
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
    return new SpannedTrace(this.#tracer, span, this.redis);
  }
}

/** One request's tracing, as the pipeline uses it (handler.ts, forward.ts, api-key-auth.ts). */
export interface RequestTrace {
  /** Names the span after the route template once it is known. */
  route(method: string, template: string): void;
  /** The span of the per-request Redis round trip; null when not recorded. */
  redisSpan(command: string): Span | null;
  /** The trace context the service continues (it goes inside the signed context). */
  forwarding(upstream: string, origin: string, method: string, template: string): { traceparent: string; tracestate?: string };
  /** Ends the spans with the status the client got (499 when it left first). */
  end(status: number): void;
}

/** A request the sampler dropped: no span, only the ids its service is told (sampled flag off). */
class DroppedTrace implements RequestTrace {
  constructor(
    private readonly traceId: string,
    private readonly spanId: string,
  ) {}

  route(): void {}

  redisSpan(): null {
    return null;
  }

  forwarding(): { traceparent: string } {
    return { traceparent: `00-${this.traceId}-${this.spanId}-00` };
  }

  end(): void {}
}

/** W3C traceparent of a span: version 00, trace id, span id, flags (01 sampled). */
function traceparentOf(span: Span): string {
  const { traceId, spanId, traceFlags } = span.spanContext();
  return `00-${traceId}-${spanId}-0${(traceFlags & 1).toString(16)}`;
}

/** One request's spans (non-recording ones when a trusted client's context says not sampled). */
class SpannedTrace implements RequestTrace {
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
      if (status >= 500) markSpanFailed(upstream, String(status));
      upstream.end();
    }
    if (!this.span.isRecording()) return;
    this.span.setAttribute(ATTR.httpStatus, status);
    if (status >= 500) markSpanFailed(this.span, String(status));
    this.span.end();
  }
}

/** Ends a Redis span; a failure (an outage: the gateway falls back to the services) marks it. */
export function endRedisSpan(span: Span | null, failed: unknown): void {
  if (span === null) return;
  if (failed !== undefined) markSpanFailed(span, failed instanceof Error ? failed.name : 'Error');
  span.end();
}
