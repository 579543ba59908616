export type {
  Bus,
  BusEnvelope,
  BusMetrics,
  ConsumeOutcome,
  DeadLetter,
  DeadLetterReason,
  DeliveryInfo,
  Handler,
  SubscribeOptions,
  Subscription,
} from './types.js';
export { BUS_CONSUMED_TOTAL, BUS_PUBLISHED_TOTAL, createBusMetrics } from './bus-metrics.js';
export { instrumentBus } from './instrument-bus.js';
export { busEnvelopeSchema, decodeEnvelope, validateEnvelope, EVENT_TYPE_PATTERN } from './envelope.js';
export { BusUnavailableError, InvalidEnvelopeError } from './errors.js';
export { topicMatches } from './topic-match.js';
export { DEFAULT_MAX_ATTEMPTS, DEFAULT_PREFETCH, DEFAULT_RETRY_DELAYS_MS } from './subscribe-options.js';
export { deadLetterQueueName, retryQueueName, subscriptionExchangeName, subscriptionQueueNames } from './queue-names.js';
export { HEADERS } from './headers.js';
export { createAmqpBus, type AmqpBus, type AmqpBusOptions } from './amqp/amqp-bus.js';
export { createMemoryBus, type MemoryBus, type MemoryBusOptions } from './memory/memory-bus.js';
export { LateSubscription, consumeLater } from './late-subscription.js';
export { consumeUserDeleted } from './user-deleted.js';
