import { SpanKind, SpanStatusCode, context, trace, type Attributes, type Span } from '@opentelemetry/api';
import { ATTR } from './attributes.js';
import { tracingIsOn } from './switch.js';

/** Marks a span failed: `error.type` (a status, an SQLSTATE, an error's name; never a message) and status ERROR. */
export function markSpanFailed(span: Span, errorType: string): void {
  span.setAttribute(ATTR.errorType, errorType);
  span.setStatus({ code: SpanStatusCode.ERROR });
}

const errorName = (err: unknown): string => (err instanceof Error ? err.name : 'Error');

/**
 * Runs `run` inside a CLIENT span of the tracer `tracerName` (a database statement, a Redis command)
 * when tracing is on and the call is part of a traced operation (a request, a consumed message):
 * pool checks, polls and start-up work make no traces of their own. `describe` runs only then, so an
 * untraced call pays for no attributes. A failure is marked with `errorTypeOf(err)` and rethrown.
 */
export function inClientSpan<T>(
  tracerName: string,
  describe: () => { name: string; attributes: Attributes },
  run: () => Promise<T>,
  errorTypeOf: (err: unknown) => string = errorName,
): Promise<T> {
  if (!tracingIsOn()) return run();
  const parent = context.active();
  if (trace.getSpan(parent) === undefined) return run();
  const { name, attributes } = describe();
  const span = trace.getTracer(tracerName).startSpan(name, { kind: SpanKind.CLIENT, attributes }, parent);
  return run().then(
    (result) => {
      span.end();
      return result;
    },
    (err: unknown) => {
      markSpanFailed(span, errorTypeOf(err));
      span.end();
      throw err;
    },
  );
}
