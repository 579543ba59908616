import { context, propagation, type Context } from '@opentelemetry/api';

/** The propagation carrier as stored with an outbox event: header name to value (traceparent, tracestate). */
export type TraceCarrier = Record<string, string>;

/** The active trace context as a carrier to store, or null when there is none (tracing off: nothing is injected). */
export function currentTraceCarrier(): TraceCarrier | null {
  const carrier: TraceCarrier = {};
  propagation.inject(context.active(), carrier);
  return Object.keys(carrier).length > 0 ? carrier : null;
}

/** Reads a stored carrier back, keeping only string values: the column is ours, but a hand-edited row must not break the relay. */
export function parseTraceCarrier(value: unknown): TraceCarrier | null {
  const parsed = typeof value === 'string' ? safeJson(value) : value;
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
  const carrier: TraceCarrier = {};
  for (const [key, entry] of Object.entries(parsed)) if (typeof entry === 'string') carrier[key] = entry;
  return Object.keys(carrier).length > 0 ? carrier : null;
}

/** `base` continued by the stored trace; `base` itself (a new trace) when nothing was stored. */
export function contextOf(carrier: TraceCarrier | null, base: Context): Context {
  return carrier ? propagation.extract(base, carrier) : base;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
