import { AUDIT_RECORDED_EVENT_TYPE, auditRecordedEventSchema, SUBSCRIPTION_EVENTS_QUEUE_BINDINGS } from '@acs/contracts';
import { insertFeedEntry } from '../data-access/audit-feed-repository.js';
import { systemActor } from '@acs/audit';
import { recordAccountChange } from '../domain/account-audit.js';
import type { Bus, BusEnvelope, Subscription } from '@acs/bus';
import { SpanStatusCode, trace } from '@opentelemetry/api';
import { findUserById } from '../data-access/users-repository.js';
import { storePlanQuota } from '../data-access/plan-quotas-repository.js';
import { applyPlanQuotaEvent, isPlanEvent } from './plan-quota-events.js';
import type { UserStore } from '../domain/deps.js';
import { changeWithWriteThrough } from '../domain/write-through.js';
import { subscriptionEndOf, subscriptionEventSchema, type SubscriptionEvent } from './contracts.js';
import {
  isProcessed,
  lockUserRow,
  newerEventApplied,
  recordProcessedEvent,
  updateUserSubscription,
  type ProcessedEvent,
} from './processed-events-repository.js';

export const SUBSCRIPTION_EVENTS_QUEUE = 'identity.subscription-events';

/** Events written before plan ids rode in them: billing has one plan per paid plan type. */
const PLAN_ID_OF_TYPE: Record<number, string> = { 1: 'monthly', 2: 'yearly', 3: 'lifetime' };

export type ApplyOutcome = 'applied' | 'duplicate' | 'stale';

/**
 * The span of one event's application (inside the bus's `process <queue>` span), under which the
 * role change's database and cache calls nest.
 */
export const APPLY_SPAN_NAME = 'apply subscription event';

/** A message that is valid JSON and a valid envelope but not a subscription event this version understands. */
export class InvalidSubscriptionEventError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidSubscriptionEventError';
  }
}

/** The trail names the consumer: the change came from billing's event, not from a request here. */
const SUBSCRIPTION_CONSUMER_ACTOR = systemActor('identity subscription-events consumer');

export function parseSubscriptionEvent(message: BusEnvelope): SubscriptionEvent {
  const parsed = subscriptionEventSchema.safeParse(message);
  if (!parsed.success) {
    throw new InvalidSubscriptionEventError(
      parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; '),
    );
  }
  return parsed.data;
}

/**
 * Applies one event: the user's subscription end (the period end; Lifetime: far future) and plan
 * type, written through to the authorization record, and the event id recorded in
 * processed_events, all in one transaction. A redelivered event is a no-op; an event older than
 * one already applied to the user is recorded but not applied. An unknown user throws (the bus
 * retries, then parks it in the dead-letter queue). Runs in a span of its own (APPLY_SPAN_NAME),
 * a child of the bus's consumer span when the bus delivered the event.
 */
export function applySubscriptionEvent(store: UserStore, event: SubscriptionEvent): Promise<ApplyOutcome> {
  // Looked up per event, not at import: spans go to whatever provider the process registered by then.
  return trace.getTracer('@acs/identity').startActiveSpan(APPLY_SPAN_NAME, async (span) => {
    span.setAttribute('acs.event.type', event.type);
    try {
      const outcome = await applyInTransaction(store, event);
      span.setAttributes({ 'acs.event.outcome': outcome, 'acs.user.plan_type': event.payload.planType });
      return outcome;
    } catch (err) {
      if (err instanceof Error) span.recordException(err);
      span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
      throw err;
    } finally {
      span.end();
    }
  });
}

async function applyInTransaction(store: UserStore, event: SubscriptionEvent): Promise<ApplyOutcome> {
  const { payload } = event;
  const ref: ProcessedEvent = {
    eventId: event.id,
    type: event.type,
    userId: payload.userId,
    occurredAt: new Date(payload.occurredAt),
    sequence: payload.sequence,
  };
  let outcome: ApplyOutcome = 'applied';
  await changeWithWriteThrough(store, async (tx) => {
    if (!(await lockUserRow(tx, payload.userId)))
      throw new Error(`subscription event ${event.id} is for user ${payload.userId}, who does not exist`);
    if (await isProcessed(tx, event.id)) {
      outcome = 'duplicate';
      return null;
    }
    if (await newerEventApplied(tx, ref)) {
      outcome = 'stale';
      await recordProcessedEvent(tx, ref, false);
      return null;
    }
    await recordProcessedEvent(tx, ref, true);
    const planId = payload.planId ?? PLAN_ID_OF_TYPE[payload.planType]!;
    // The quota rides with the event (issue 29); kept unless a newer plan event already replaced it.
    if (payload.quota) await storePlanQuota(tx, planId, payload.quota, payload.sequence);
    const before = await findUserById(tx, payload.userId);
    await updateUserSubscription(tx, payload.userId, subscriptionEndOf(payload.currentPeriodEnd), payload.planType, planId);
    const after = await findUserById(tx, payload.userId);
    if (before && after) await recordAccountChange(tx, SUBSCRIPTION_CONSUMER_ACTOR, 'account.subscription_changed', before, after);
    return after;
  });
  const level = outcome === 'applied' ? 'info' : 'debug';
  store.logger[level](
    {
      audit: outcome === 'applied' ? 'user.subscription_changed' : undefined,
      eventId: event.id,
      type: event.type,
      userId: payload.userId,
      planType: payload.planType,
      currentPeriodEnd: payload.currentPeriodEnd,
      outcome,
    },
    `subscription event ${outcome}`,
  );
  return outcome;
}

export interface SubscriptionConsumerOptions {
  queue?: string;
  maxAttempts?: number;
  retryDelaysMs?: number[];
  prefetch?: number;
}

/**
 * Identity's durable queue bound to `subscription.*`. The bus acks after the handler resolves
 * (after the commit), retries a failure with backoff and parks poison messages and messages that
 * keep failing in `<queue>.dlq`.
 */
export function startSubscriptionEventsConsumer(
  store: UserStore,
  bus: Bus,
  options: SubscriptionConsumerOptions = {},
): Promise<Subscription> {
  return bus.subscribe({
    queue: options.queue ?? SUBSCRIPTION_EVENTS_QUEUE,
    // Subscription and plan events, and the audit entries for the user's trail (@acs/contracts says why one queue).
    bindings: SUBSCRIPTION_EVENTS_QUEUE_BINDINGS,
    handler: async (message) => {
      if (message.type === AUDIT_RECORDED_EVENT_TYPE) {
        const { eventId: _eventId, ...entry } = auditRecordedEventSchema.parse(message).payload;
        await insertFeedEntry(store.db, entry);
        return;
      }
      if (isPlanEvent(message)) await applyPlanQuotaEvent(store, message);
      else await applySubscriptionEvent(store, parseSubscriptionEvent(message));
    },
    ...(options.maxAttempts !== undefined ? { maxAttempts: options.maxAttempts } : {}),
    ...(options.retryDelaysMs !== undefined ? { retryDelaysMs: options.retryDelaysMs } : {}),
    ...(options.prefetch !== undefined ? { prefetch: options.prefetch } : {}),
  });
}
