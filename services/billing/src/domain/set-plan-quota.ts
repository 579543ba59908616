import { randomUUID } from 'node:crypto';
import type { Db } from '@acs/db';
import { PLAN_QUOTA_EVENT_TYPE, PLAN_QUOTA_ROUTING_KEY, planQuotaEventPayloadSchema, type PlanQuota } from '../contracts.js';
import { insertOutboxEvent } from '@acs/outbox';
import { BILLING_OUTBOX } from '../relay/billing-outbox.js';
import { updatePlanQuota } from '../data-access/plans-repository.js';
import type { Plan } from './plan.js';

/** Plan events belong to no user; the outbox column is NOT NULL, and no user has id 0. */
const NO_USER_ID = 0;

/** Checked like a subscription event's payload (a placeholder sequence) before it is stored, so a bad event fails here, not in the relay. */
const storedPayloadSchema = planQuotaEventPayloadSchema.omit({ sequence: true });

/**
 * Changes a plan's caps (those named in `change`) and writes plan.quota_changed to the outbox in the same transaction: the relay
 * publishes it and identity rewrites the authorization record of every user on the plan
 * (docs/identity-and-billing.md). Returns the plan and the outbox row id (to wait for its publication),
 * or null when there is no such plan.
 */
export async function setPlanQuota(db: Db, planId: string, change: Partial<PlanQuota>): Promise<{ plan: Plan; outboxId: number } | null> {
  return db.transaction(async (tx) => {
    const plan = await updatePlanQuota(tx, planId, change);
    if (!plan) return null;
    const eventId = randomUUID();
    const occurredAt = new Date();
    const payload = storedPayloadSchema.parse({ eventId, planId, quota: plan.quota, occurredAt: occurredAt.toISOString() });
    const outboxId = await insertOutboxEvent(tx, BILLING_OUTBOX, {
      eventId,
      userId: NO_USER_ID,
      type: PLAN_QUOTA_EVENT_TYPE,
      routingKey: PLAN_QUOTA_ROUTING_KEY,
      payload,
      occurredAt,
      traceContext: null,
    });
    return { plan, outboxId };
  });
}
