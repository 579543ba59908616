import { context, propagation, trace, type SpanContext } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { waitFor } from './wait.js';

export type { ReadableSpan };

/**
 * An SDK registered for one test only: every span ends up in memory, in the order it ended. The
 * production code sees it through the global API exactly as it would see the process's SDK.
 */
export interface TestTracing {
  spans(): ReadableSpan[];
  /** The ended spans named `name`, waiting until there are at least `count`. */
  waitForSpans(name: string, count?: number): Promise<ReadableSpan[]>;
  /** Unregisters everything, so the next test (or file) starts with tracing off. */
  stop(): Promise<void>;
}

export function startTestTracing(): TestTracing {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  if (!trace.setGlobalTracerProvider(provider)) throw new Error('a tracer provider is registered already');
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const spans = (): ReadableSpan[] => exporter.getFinishedSpans();
  return {
    spans,
    waitForSpans: (name, count = 1) =>
      waitFor(`${count} ended span(s) named "${name}"`, () => {
        const named = spans().filter((span) => span.name === name);
        return named.length >= count ? named : null;
      }),
    async stop() {
      trace.disable();
      context.disable();
      propagation.disable();
      await provider.shutdown();
    },
  };
}

/** Runs `fn` inside a fresh root span of the test (the "request" a trace starts from) and returns its context with the result. */
export async function inTestSpan<T>(name: string, fn: () => Promise<T>): Promise<{ result: T; span: SpanContext }> {
  return trace.getTracer('test').startActiveSpan(name, { root: true }, async (span) => {
    try {
      return { result: await fn(), span: span.spanContext() };
    } finally {
      span.end();
    }
  });
}

/** The parent's span id, or undefined for a root span. */
export const parentIdOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;

export const idsOf = (span: ReadableSpan): { traceId: string; spanId: string } => {
  const { traceId, spanId } = span.spanContext();
  return { traceId, spanId };
};
