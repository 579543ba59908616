/** Where a subscriber's parked messages go. Durable; an operator drains it by hand. */
export function deadLetterQueueName(queue: string): string {
  return `${queue}.dlq`;
}

/**
 * One retry queue per delay, each with a queue-wide TTL that dead-letters back to `queue`.
 * Per-message TTLs in a single queue would expire only at the head, so a 1 s retry could wait
 * behind a 120 s one; with one TTL per queue, FIFO order is expiry order.
 *
 * The `ms` suffix is new with the subscriber's own exchange: the former `<queue>.retry.<delay>`
 * queues dead-letter through the default exchange, and RabbitMQ refuses to re-declare a queue with
 * other arguments (PRECONDITION_FAILED), so the new ones take new names and the old ones drain
 * into the queue by themselves (docs/operations.md, "Bus retry queues renamed").
 */
export function retryQueueName(queue: string, delayMs: number): string {
  return `${queue}.retry.${delayMs}ms`;
}

/**
 * The subscriber's own direct exchange: failed messages go through it to its retry and dead-letter
 * queues, and expired retries come back through it to the queue, each queue bound by its own name.
 * Named inside the queue's namespace (`<queue>.x`) so that the broker permission a service already has
 * on its queues (`<queue>(\..*)?`, deploy/rabbitmq/users.sh) covers it, and no consumer needs write on
 * the default exchange, which would let it put a message into any queue (docs/security.md).
 */
export function subscriptionExchangeName(queue: string): string {
  return `${queue}.x`;
}

/** Every queue a subscription declares: for cleanup in tests and tooling. (Its exchange goes with the last of them: auto-delete.) */
export function subscriptionQueueNames(queue: string, retryDelaysMs: readonly number[]): string[] {
  return [queue, deadLetterQueueName(queue), ...[...new Set(retryDelaysMs)].map((delay) => retryQueueName(queue, delay))];
}
