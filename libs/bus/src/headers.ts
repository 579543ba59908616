import type { DeadLetterReason } from './types.js';

/**
 * Headers the bus sets when it moves a message to a retry or dead-letter queue. They travel with
 * the message, so the retry state survives a consumer restart.
 */
export const HEADERS = {
  /** The attempt number of the next delivery. */
  attempt: 'x-bus-attempt',
  /**
   * On a dead letter: handler calls made. A separate header, so a message an operator moves back
   * from the `.dlq` starts again at attempt 1 with a full retry budget.
   */
  attempts: 'x-bus-attempts',
  /** The original routing key; dead-lettering back from a retry queue replaces it with the queue name. */
  routingKey: 'x-bus-routing-key',
  lastError: 'x-bus-last-error',
  reason: 'x-bus-dead-letter-reason',
  deadLetteredAt: 'x-bus-dead-lettered-at',
} as const;

/** The W3C trace-context header the publisher's span travels in (bus-tracing.ts); kept on retries and dead letters. */
export const TRACEPARENT = 'traceparent';

// Header tables are capped (amqplib throws past 64 KiB); an error message is a hint, not a dump.
const MAX_ERROR_LENGTH = 1_000;

export function errorText(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return text.length > MAX_ERROR_LENGTH ? `${text.slice(0, MAX_ERROR_LENGTH)}…` : text;
}

export type Headers = Record<string, unknown>;

/** A missing or malformed attempt header means a first delivery. */
export function attemptOf(headers: Headers | undefined): number {
  const value = Number(headers?.[HEADERS.attempt]);
  return Number.isInteger(value) && value >= 1 ? value : 1;
}

export function originalRoutingKey(headers: Headers | undefined, fallback: string): string {
  const value = headers?.[HEADERS.routingKey];
  return typeof value === 'string' ? value : fallback;
}

export function retryHeaders(base: Headers | undefined, routingKey: string, nextAttempt: number, err: unknown): Headers {
  return {
    ...withoutBrokerHeaders(base),
    [HEADERS.attempt]: nextAttempt,
    [HEADERS.routingKey]: routingKey,
    [HEADERS.lastError]: errorText(err),
  };
}

export function deadLetterHeaders(
  base: Headers | undefined,
  routingKey: string,
  attempts: number,
  reason: DeadLetterReason,
  lastError: string,
): Headers {
  const headers = withoutBrokerHeaders(base);
  delete headers[HEADERS.attempt];
  return {
    ...headers,
    [HEADERS.attempts]: attempts,
    [HEADERS.routingKey]: routingKey,
    [HEADERS.lastError]: lastError,
    [HEADERS.reason]: reason,
    [HEADERS.deadLetteredAt]: new Date().toISOString(),
  };
}

// The broker appends `x-death` on every pass through a retry queue; copying it forward would grow
// the header on each attempt for no benefit, since our own headers carry the state.
function withoutBrokerHeaders(headers: Headers | undefined): Headers {
  const copy: Headers = { ...headers };
  for (const name of ['x-death', 'x-first-death-exchange', 'x-first-death-queue', 'x-first-death-reason']) delete copy[name];
  return copy;
}
