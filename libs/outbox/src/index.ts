export { defineOutboxTable, type OutboxTable } from './outbox-table.js';
export { insertOutboxEvent, pendingOutbox, type NewOutboxEvent, type OutboxRow, type PendingOutbox } from './outbox-repository.js';
export { startOutboxRelay, type OutboxRelay, type OutboxRelayOptions } from './outbox-relay.js';
export { relayBackoffMs } from './backoff.js';
export { outboxGaugeNames, registerOutboxGauges, type OutboxGaugeNames } from './outbox-gauges.js';
export { outboxEnvelope } from './outbox-envelope.js';
export { currentTraceCarrier, type TraceCarrier } from './trace-context.js';
export { recordAuditEvent } from './record-audit-event.js';
