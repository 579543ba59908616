/**
 * Just enough of the protobuf wire format to read an OTLP ExportTraceServiceRequest (what the default
 * http/protobuf exporter sends) into the same shape as its JSON form: resource attributes and, per
 * span, ids, name, kind and string/int attributes. Field numbers from opentelemetry-proto
 * (collector/trace/v1, trace/v1, common/v1, resource/v1).
 */
type Field = { number: number; wire: number; value: bigint | Buffer };

function* fields(buf: Buffer): Generator<Field> {
  let at = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const byte = buf[at++]!;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  while (at < buf.length) {
    const tag = Number(varint());
    const wire = tag & 7;
    const number = tag >>> 3;
    if (wire === 0) yield { number, wire, value: varint() };
    else if (wire === 1) {
      yield { number, wire, value: buf.subarray(at, at + 8) };
      at += 8;
    } else if (wire === 2) {
      const length = Number(varint());
      yield { number, wire, value: buf.subarray(at, at + length) };
      at += length;
    } else if (wire === 5) {
      yield { number, wire, value: buf.subarray(at, at + 4) };
      at += 4;
    } else throw new Error(`unsupported protobuf wire type ${wire}`);
  }
}

const bytes = (f: Field): Buffer => f.value as Buffer;

/** AnyValue: string_value = 1, bool_value = 2, int_value = 3, double_value = 4. */
function anyValue(buf: Buffer): unknown {
  for (const f of fields(buf)) {
    if (f.number === 1) return bytes(f).toString('utf8');
    if (f.number === 2) return f.value === 1n;
    if (f.number === 3) return Number(f.value as bigint);
    if (f.number === 4) return bytes(f).readDoubleLE(0);
  }
  return undefined;
}

/** KeyValue: key = 1, value = 2. */
function attributes(list: Buffer[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const kv of list) {
    let key = '';
    let value: unknown;
    for (const f of fields(kv)) {
      if (f.number === 1) key = bytes(f).toString('utf8');
      else if (f.number === 2) value = anyValue(bytes(f));
    }
    out[key] = value;
  }
  return out;
}

export interface DecodedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  links: { traceId: string; spanId: string }[];
  statusCode: number;
}

export interface DecodedResourceSpans {
  resource: Record<string, unknown>;
  spans: DecodedSpan[];
}

/** Span: trace_id 1, span_id 2, parent_span_id 4, name 5, kind 6, attributes 9, links 13, status 15. */
function span(buf: Buffer): DecodedSpan {
  const decoded: DecodedSpan = { traceId: '', spanId: '', parentSpanId: '', name: '', kind: 0, attributes: {}, links: [], statusCode: 0 };
  const attrs: Buffer[] = [];
  for (const f of fields(buf)) {
    if (f.number === 1) decoded.traceId = bytes(f).toString('hex');
    else if (f.number === 2) decoded.spanId = bytes(f).toString('hex');
    else if (f.number === 4) decoded.parentSpanId = bytes(f).toString('hex');
    else if (f.number === 5) decoded.name = bytes(f).toString('utf8');
    else if (f.number === 6) decoded.kind = Number(f.value as bigint);
    else if (f.number === 9) attrs.push(bytes(f));
    else if (f.number === 13) {
      const link = { traceId: '', spanId: '' };
      for (const l of fields(bytes(f))) {
        if (l.number === 1) link.traceId = bytes(l).toString('hex');
        else if (l.number === 2) link.spanId = bytes(l).toString('hex');
      }
      decoded.links.push(link);
    } else if (f.number === 15) {
      for (const s of fields(bytes(f))) if (s.number === 3) decoded.statusCode = Number(s.value as bigint);
    }
  }
  decoded.attributes = attributes(attrs);
  return decoded;
}

/** ExportTraceServiceRequest: resource_spans 1 → resource 1 (attributes 1), scope_spans 2 → spans 2. */
export function decodeTraceRequest(body: Buffer): DecodedResourceSpans[] {
  const out: DecodedResourceSpans[] = [];
  for (const rs of fields(body)) {
    if (rs.number !== 1) continue;
    const entry: DecodedResourceSpans = { resource: {}, spans: [] };
    for (const f of fields(bytes(rs))) {
      if (f.number === 1) entry.resource = attributes([...fields(bytes(f))].filter((a) => a.number === 1).map(bytes));
      else if (f.number === 2) for (const s of fields(bytes(f))) if (s.number === 2) entry.spans.push(span(bytes(s)));
    }
    out.push(entry);
  }
  return out;
}
