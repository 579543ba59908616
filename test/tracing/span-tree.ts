import type { ReceivedSpan } from './otlp-receiver.js';

/** Reading a trace out of received spans: by trace, by parent, by a chain of (service, kind, name) steps. */
export const inTrace = (spans: readonly ReceivedSpan[], traceId: string): ReceivedSpan[] => spans.filter((s) => s.traceId === traceId);

export const childrenOf = (spans: readonly ReceivedSpan[], parent: ReceivedSpan): ReceivedSpan[] =>
  spans.filter((s) => s.traceId === parent.traceId && s.parentSpanId === parent.spanId);

export interface SpanStep {
  service: string;
  kind: number;
  /** The span's name, or a test of it. */
  name?: string | RegExp;
}

const matches = (span: ReceivedSpan, step: SpanStep): boolean =>
  span.service === step.service &&
  span.kind === step.kind &&
  (step.name === undefined || (typeof step.name === 'string' ? span.name === step.name : step.name.test(span.name)));

/** The first span of `spans` matching `step`, or undefined. */
export const findSpan = (spans: readonly ReceivedSpan[], step: SpanStep): ReceivedSpan | undefined => spans.find((s) => matches(s, step));

/**
 * The chain root → ... where each step is a child of the previous one (the first step is any span),
 * or null while some step has not arrived.
 */
export function findChain(spans: readonly ReceivedSpan[], steps: readonly SpanStep[], root?: ReceivedSpan): ReceivedSpan[] | null {
  const [first, ...rest] = steps;
  if (!first) return [];
  const candidates = root ? childrenOf(spans, root).filter((s) => matches(s, first)) : spans.filter((s) => matches(s, first));
  for (const candidate of candidates) {
    const tail = findChain(spans, rest, candidate);
    if (tail) return [candidate, ...tail];
  }
  return null;
}
