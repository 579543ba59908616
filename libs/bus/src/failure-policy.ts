import type { Logger } from '@acs/logger';
import { errorText } from './headers.js';
import type { ResolvedSubscribeOptions } from './subscribe-options.js';
import type { DeadLetterReason } from './types.js';

export type FailureOutcome = { kind: 'retry'; nextAttempt: number; delayMs: number } | { kind: 'park' };

/** The wait after failed attempt `attempt` (1-based); the last delay repeats. */
function retryDelayFor(attempt: number, retryDelaysMs: readonly number[]): number {
  const index = Math.min(Math.max(attempt, 1), retryDelaysMs.length) - 1;
  return retryDelaysMs[index] ?? 0;
}

/** One rule for both buses: retry with backoff until maxAttempts handler calls have failed. */
export function failureOutcome(attempt: number, options: Pick<ResolvedSubscribeOptions, 'maxAttempts' | 'retryDelaysMs'>): FailureOutcome {
  if (attempt >= options.maxAttempts) return { kind: 'park' };
  return { kind: 'retry', nextAttempt: attempt + 1, delayMs: retryDelayFor(attempt, options.retryDelaysMs) };
}

/** What a log line may say about a message: identifiers, never the payload. */
export interface MessageRef {
  queue: string;
  routingKey: string;
  messageId?: string | undefined;
  type?: string | undefined;
}

export function logRetry(logger: Logger, ref: MessageRef, attempt: number, delayMs: number, err: unknown): void {
  logger.warn({ ...ref, attempt, delayMs, err: errorText(err) }, 'bus handler failed; retry scheduled');
}

export function logParked(logger: Logger, ref: MessageRef, reason: DeadLetterReason, attempts: number, lastError: string): void {
  logger.error({ ...ref, reason, attempts, err: lastError }, 'bus message parked in dead-letter queue');
}
