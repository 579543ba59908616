import { API_KEY_EVENTS_BINDING } from './api-key-events.js';
import { AUDIT_RECORDED_ROUTING_KEY } from './audit.js';
import { PLAN_EVENTS_BINDING, QUOTA_THRESHOLD_ROUTING_KEY } from './quota.js';
import { SUBSCRIPTION_EVENTS_BINDING } from './subscription-events.js';

/*
 * The patterns a consumer's queue is bound with on the events exchange, where more than one service must agree
 * on them: the consumer subscribes with them, and deploy/rabbitmq/users.sh --definitions declares the same
 * bindings before any service starts (test/deploy/broker-users.test.ts holds the script to these).
 */

/**
 * identity's queue. Plan events share it: one consumer, in billing's outbox order. It also takes the audit
 * entries keys and billing publish for the user's trail (GET /api/AuditLog): no second queue, so identity's
 * broker permissions stay as they are.
 */
export const SUBSCRIPTION_EVENTS_QUEUE_BINDINGS = [SUBSCRIPTION_EVENTS_BINDING, PLAN_EVENTS_BINDING, AUDIT_RECORDED_ROUTING_KEY];

/** webhooks' queue: one binding per event family it turns into users' webhook deliveries. */
export const WEBHOOK_SOURCE_BINDINGS = [API_KEY_EVENTS_BINDING, QUOTA_THRESHOLD_ROUTING_KEY, SUBSCRIPTION_EVENTS_BINDING];
