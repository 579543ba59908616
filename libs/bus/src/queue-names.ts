/** Where a subscriber's parked messages go. Durable; an operator drains it by hand. */
export function deadLetterQueueName(queue: string): string {
  return `${queue}.dlq`;
}

/**
 * One retry queue per delay, each with a queue-wide TTL that dead-letters back to `queue`.
 * Per-message TTLs in a single queue would expire only at the head, so a 1 s retry could wait
 * behind a 120 s one; with one TTL per queue, FIFO order is expiry order.
 */
export function retryQueueName(queue: string, delayMs: number): string {
  return `${queue}.retry.${delayMs}`;
}

/** Every queue a subscription declares: for cleanup in tests and tooling. */
export function subscriptionQueueNames(queue: string, retryDelaysMs: readonly number[]): string[] {
  return [queue, deadLetterQueueName(queue), ...[...new Set(retryDelaysMs)].map((delay) => retryQueueName(queue, delay))];
}
