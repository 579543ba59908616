import {
  API_KEY_EVENT_TYPES,
  QUOTA_THRESHOLD_EVENT_TYPE,
  SUBSCRIPTION_EVENT_TYPES,
  apiKeyEventSchema,
  quotaThresholdEventSchema,
  subscriptionEventSchema,
  webhookEventOf,
  type WebhookPayload,
} from '@acs/contracts';
import type { BusEnvelope } from '@acs/bus';

/** A bus event as the fan-out needs it: whose it is, and the body every endpoint of that user gets. */
export interface WebhookEvent {
  id: string;
  busType: string;
  userId: number | null;
  payload: WebhookPayload;
}

/** A message that is a known event type but not a valid one: the bus retries it, then parks it. */
class InvalidWebhookSourceEvent extends Error {
  constructor(type: string, issues: string) {
    super(`${type}: ${issues}`);
    this.name = 'InvalidWebhookSourceEvent';
  }
}

function parsed<T>(
  result: { success: true; data: T } | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } },
  type: string,
): T {
  if (result.success) return result.data;
  throw new InvalidWebhookSourceEvent(
    type,
    result.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; '),
  );
}

const SUBSCRIPTION_CHANGES: Record<string, string> = {
  [SUBSCRIPTION_EVENT_TYPES.activated]: 'activated',
  [SUBSCRIPTION_EVENT_TYPES.changed]: 'changed',
  [SUBSCRIPTION_EVENT_TYPES.canceled]: 'canceled',
};

/**
 * The webhook a bus event becomes; null for a type no endpoint can subscribe to. The data leaves
 * out what is ours, not the user's: the bus sequence, the event id (it is in the delivery's log) and the user id.
 */
export function webhookEventFrom(message: BusEnvelope): WebhookEvent | null {
  const type = webhookEventOf(message.type);
  if (type === undefined) return null;
  if ((Object.values(API_KEY_EVENT_TYPES) as string[]).includes(message.type)) {
    const event = parsed(apiKeyEventSchema.safeParse(message), message.type);
    const { eventId: _e, userId, sequence: _s, occurredAt, ...data } = event.payload;
    return { id: event.id, busType: event.type, userId, payload: { type, timestamp: occurredAt, data } };
  }
  if (message.type === QUOTA_THRESHOLD_EVENT_TYPE) {
    const event = parsed(quotaThresholdEventSchema.safeParse(message), message.type);
    const { eventId: _e, userId, occurredAt, ...data } = event.payload;
    return { id: event.id, busType: event.type, userId, payload: { type, timestamp: occurredAt, data } };
  }
  const event = parsed(subscriptionEventSchema.safeParse(message), message.type);
  const { eventId: _e, userId, sequence: _s, occurredAt, ...data } = event.payload;
  return {
    id: event.id,
    busType: event.type,
    userId,
    payload: { type, timestamp: occurredAt, data: { change: SUBSCRIPTION_CHANGES[event.type], ...data } },
  };
}
