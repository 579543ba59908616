import type { Context } from '@opentelemetry/api';
import { subscriberContext } from './bus-tracing.js';
import type { BusMetrics, Handler, SubscribeOptions } from './types.js';

export const DEFAULT_MAX_ATTEMPTS = 5;
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [1_000, 5_000, 30_000, 120_000];
export const DEFAULT_PREFETCH = 10;

/** SubscribeOptions with defaults applied and checked once, so both buses read the same values. */
export interface ResolvedSubscribeOptions {
  queue: string;
  bindings: string[];
  handler: Handler;
  maxAttempts: number;
  retryDelaysMs: number[];
  prefetch: number;
  metrics: BusMetrics | undefined;
  /** The trace context deliveries start from (the subscriber's, without its span), whatever context the broker's callbacks run in. */
  traceBase: Context;
}

function assertPositiveInteger(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 1) throw new TypeError(`${name} must be a positive integer, got ${value}`);
}

/**
 * Misconfiguration throws at subscribe time rather than surfacing as lost retries later. Call it
 * synchronously inside subscribe(), so traceBase is the subscriber's context.
 */
export function resolveSubscribeOptions(options: SubscribeOptions): ResolvedSubscribeOptions {
  const { queue, bindings, handler } = options;
  if (typeof queue !== 'string' || queue.length === 0) throw new TypeError('queue must be a non-empty string');
  if (!Array.isArray(bindings) || bindings.length === 0) throw new TypeError('bindings must list at least one routing-key pattern');
  if (typeof handler !== 'function') throw new TypeError('handler must be a function');
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  const prefetch = options.prefetch ?? DEFAULT_PREFETCH;
  const retryDelaysMs = [...(options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS)];
  assertPositiveInteger('maxAttempts', maxAttempts);
  assertPositiveInteger('prefetch', prefetch);
  if (retryDelaysMs.length === 0) throw new TypeError('retryDelaysMs must not be empty');
  for (const [index, delay] of retryDelaysMs.entries()) assertPositiveInteger(`retryDelaysMs[${index}]`, delay);
  return {
    queue,
    bindings: [...new Set(bindings)],
    handler,
    maxAttempts,
    retryDelaysMs,
    prefetch,
    metrics: options.metrics,
    traceBase: subscriberContext(),
  };
}
