/**
 * The bus contract shared by the RabbitMQ and the in-process implementation. Both must behave the
 * same (test/bus-contract.ts runs one behavioural suite against each), so code written against
 * `Bus` works unchanged in the embedded mode and against RabbitMQ.
 */

/** What travels on the bus. `type` is versioned (`subscription.activated.v1`) so payloads can evolve. */
export interface BusEnvelope {
  id: string;
  type: string;
  occurredAt: string;
  payload: unknown;
}

export interface DeliveryInfo {
  /** 1 on the first delivery; counts handler failures, not broker redeliveries. */
  attempt: number;
  /** The key the message was published with (kept across retries). */
  routingKey: string;
  /** The broker delivered it before without an ack (e.g. the consumer died mid-handling). */
  redelivered: boolean;
}

/** Resolve to ack; throw to retry with backoff. Must be idempotent on `message.id`. */
export type Handler = (message: BusEnvelope, info: DeliveryInfo) => Promise<void>;

export interface SubscribeOptions {
  /** Durable queue owned by this subscriber; `<queue>.dlq` and retry queues derive from it. */
  queue: string;
  /** Topic patterns (`*` one word, `#` zero or more words). */
  bindings: string[];
  handler: Handler;
  /** Handler calls before the message is parked in `<queue>.dlq`. Default 5. */
  maxAttempts?: number;
  /** Delay before attempt n+1 is `retryDelaysMs[n-1]`, the last entry repeating. */
  retryDelaysMs?: number[];
  /** Messages handled concurrently. Default 10. */
  prefetch?: number;
  /** Counts what became of each delivery (instrumentBus sets it). */
  metrics?: BusMetrics;
}

/** What became of one delivery: handled, sent to a retry queue, parked in `<queue>.dlq`, or put back (moving it failed). */
export type ConsumeOutcome = 'ack' | 'retry' | 'dead_lettered' | 'requeued';

/** Where a bus reports its traffic; createBusMetrics gives the Prometheus one. */
export interface BusMetrics {
  consumed(queue: string, outcome: ConsumeOutcome): void;
  published(outcome: 'ok' | 'failed'): void;
}

export interface Subscription {
  /** Stops new deliveries, waits for the handlers in flight, then releases the consumer. */
  close(): Promise<void>;
}

export interface Bus {
  /** Resolves once the message is safely accepted (broker confirm / queued); rejects otherwise. */
  publish(routingKey: string, message: BusEnvelope): Promise<void>;
  /** Resolves once the queue is declared, bound and consumed. */
  subscribe(options: SubscribeOptions): Promise<Subscription>;
  /** For readiness probes: connected and the topology in place. */
  ready(): Promise<boolean> | boolean;
  close(): Promise<void>;
}

/** A message that left the normal flow, as read back from `<queue>.dlq`. */
export interface DeadLetter {
  queue: string;
  routingKey: string;
  /** The message body exactly as received (may not even be JSON). */
  content: string;
  reason: DeadLetterReason;
  /** Handler calls made; 0 for a poison message. */
  attempts: number;
  lastError: string;
  deadLetteredAt: string;
  /** The W3C traceparent the message was published with, when traced: finds the trace of a parked event. */
  traceparent?: string;
}

export type DeadLetterReason = 'poison' | 'max-attempts';
