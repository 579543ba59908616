import { createServer, type IncomingMessage } from 'node:http';
import { decodeTraceRequest, type DecodedResourceSpans, type DecodedSpan } from './otlp-protobuf.js';
import { listenOnLoopback } from '@acs/testing';

/** One received span with its resource's service.name, decoded from OTLP/HTTP JSON or protobuf. */
export interface ReceivedSpan extends DecodedSpan {
  service: string;
}

/** OTLP SpanKind numbers (opentelemetry-proto trace/v1). */
export const KIND = { internal: 1, server: 2, client: 3, producer: 4, consumer: 5 } as const;

export interface OtlpReceiver {
  /** Base URL for OTEL_EXPORTER_OTLP_ENDPOINT (the exporter appends /v1/traces). */
  url: string;
  readonly spans: readonly ReceivedSpan[];
  /** Content types of the export requests received, in order. */
  readonly contentTypes: readonly string[];
  /** Resolves with the spans once `done(spans)` is true; rejects with what arrived after `timeoutMs`. */
  waitForSpans(done: (spans: readonly ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<readonly ReceivedSpan[]>;
  close(): Promise<void>;
}

type JsonValue = { stringValue?: string; intValue?: number | string; boolValue?: boolean; doubleValue?: number };
type JsonAttributes = { key: string; value: JsonValue }[] | undefined;

function fromJsonAttributes(list: JsonAttributes): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key, value } of list ?? []) {
    out[key] = value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.boolValue ?? value.doubleValue));
  }
  return out;
}

/** The JSON form (ids in hex, as the OTLP/JSON mapping says) into the decoded shape. */
function decodeJson(text: string): DecodedResourceSpans[] {
  type JsonSpan = {
    traceId: string;
    spanId: string;
    parentSpanId?: string;
    name: string;
    kind: number;
    attributes?: JsonAttributes;
    links?: { traceId: string; spanId: string }[];
    status?: { code?: number };
  };
  const body = JSON.parse(text) as {
    resourceSpans?: { resource?: { attributes?: JsonAttributes }; scopeSpans?: { spans?: JsonSpan[] }[] }[];
  };
  return (body.resourceSpans ?? []).map((rs) => ({
    resource: fromJsonAttributes(rs.resource?.attributes),
    spans: (rs.scopeSpans ?? []).flatMap((ss) =>
      (ss.spans ?? []).map((s) => ({
        traceId: s.traceId,
        spanId: s.spanId,
        parentSpanId: s.parentSpanId ?? '',
        name: s.name,
        kind: s.kind,
        attributes: fromJsonAttributes(s.attributes),
        links: (s.links ?? []).map((l) => ({ traceId: l.traceId, spanId: l.spanId })),
        statusCode: s.status?.code ?? 0,
      })),
    ),
  }));
}

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * A tiny OTLP/HTTP trace receiver (POST /v1/traces, http/json and http/protobuf), standing in for a
 * collector: the processes under test export to it as they would to Jaeger or Tempo.
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const waiters = new Set<() => void>();
  const server = createServer(async (req, res) => {
    const type = req.headers['content-type'] ?? '';
    const body = await bodyOf(req);
    if (req.method !== 'POST' || req.url !== '/v1/traces') {
      res.writeHead(404).end();
      return;
    }
    contentTypes.push(type);
    const decoded = type.startsWith('application/json') ? decodeJson(body.toString('utf8')) : decodeTraceRequest(body);
    for (const { resource, spans: list } of decoded) {
      for (const span of list) spans.push({ ...span, service: String(resource['service.name']) });
    }
    // An empty ExportTraceServiceResponse: a successful export in either encoding.
    if (type.startsWith('application/json')) res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    else res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    for (const wake of waiters) wake();
  });
  const port = await listenOnLoopback(server);
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    contentTypes,
    waitForSpans: (done, timeoutMs = 20_000) =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          if (!done(spans)) return;
          cleanup();
          resolve(spans);
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`the spans awaited did not arrive within ${timeoutMs} ms; received:\n${describeSpans(spans)}`));
        }, timeoutMs);
        const cleanup = (): void => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      }),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** One line per span, for failure messages. */
function describeSpans(spans: readonly ReceivedSpan[]): string {
  return spans
    .map((s) => `  ${s.service} ${s.name} kind=${s.kind} trace=${s.traceId} span=${s.spanId} parent=${s.parentSpanId || '-'}`)
    .join('\n');
}
