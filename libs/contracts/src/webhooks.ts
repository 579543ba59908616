import { z } from 'zod';
import { cursorPageQueryFields, type CursorPaging } from './cursor-page.js';
import { API_KEY_EVENT_TYPES } from './api-key-events.js';
import { QUOTA_THRESHOLD_EVENT_TYPE } from './quota.js';
import { SUBSCRIPTION_EVENT_TYPES } from './subscription-events.js';

// A user's webhook endpoints (POST/GET/PATCH/DELETE /api/Webhooks), answered by the webhooks
// service (docs/architecture.md, decision 15). Deliveries follow the Standard Webhooks specification.

/**
 * The events a user can subscribe an endpoint to, and the bus event types each one is made from.
 * Billing's three subscription events are one webhook event: `data.change` says which.
 */
const WEBHOOK_EVENT_SOURCES = {
  'api_key.created': [API_KEY_EVENT_TYPES.created],
  'api_key.revoked': [API_KEY_EVENT_TYPES.revoked],
  'api_key.rolled': [API_KEY_EVENT_TYPES.rolled],
  'api_key.expiring': [API_KEY_EVENT_TYPES.expiring],
  'api_key.expired': [API_KEY_EVENT_TYPES.expired],
  'api_key.exposed': [API_KEY_EVENT_TYPES.exposed],
  'quota.threshold': [QUOTA_THRESHOLD_EVENT_TYPE],
  'subscription.changed': [SUBSCRIPTION_EVENT_TYPES.activated, SUBSCRIPTION_EVENT_TYPES.changed, SUBSCRIPTION_EVENT_TYPES.canceled],
} as const;

export type WebhookEventType = keyof typeof WEBHOOK_EVENT_SOURCES;
export const WEBHOOK_EVENT_TYPES = Object.keys(WEBHOOK_EVENT_SOURCES) as [WebhookEventType, ...WebhookEventType[]];

/** The webhook event a bus event type becomes; undefined for one no endpoint can subscribe to. */
export function webhookEventOf(busType: string): WebhookEventType | undefined {
  for (const [event, sources] of Object.entries(WEBHOOK_EVENT_SOURCES) as [WebhookEventType, readonly string[]][])
    if (sources.includes(busType)) return event;
  return undefined;
}

const WEBHOOK_URL_MAX_LENGTH = 2000;
const WEBHOOK_DESCRIPTION_MAX_LENGTH = 200;
/** Endpoints one user may register. */
export const WEBHOOK_MAX_ENDPOINTS_PER_USER = 20;

const isoTimestamp = z.iso.datetime({ offset: true });
const webhookUrl = z.string().min(1).max(WEBHOOK_URL_MAX_LENGTH);
const webhookEvents = z
  .array(z.enum(WEBHOOK_EVENT_TYPES, { error: `expected one of ${WEBHOOK_EVENT_TYPES.join(', ')}` }))
  .min(1, 'expected at least one event')
  .max(WEBHOOK_EVENT_TYPES.length);

export const webhookCreateRequestSchema = z
  .object({
    url: webhookUrl,
    events: webhookEvents,
    description: z.string().max(WEBHOOK_DESCRIPTION_MAX_LENGTH).optional(),
  })
  .strict();
export type WebhookCreateRequest = z.infer<typeof webhookCreateRequestSchema>;

export const webhookChangeRequestSchema = z
  .object({
    url: webhookUrl.optional(),
    events: webhookEvents.optional(),
    description: z.string().max(WEBHOOK_DESCRIPTION_MAX_LENGTH).nullable().optional(),
    /** true re-enables an endpoint that was disabled (by its owner or after failing deliveries); false pauses it. */
    enabled: z.boolean().optional(),
  })
  .strict()
  .refine((body) => Object.keys(body).length > 0, { message: 'expected at least one of url, events, description, enabled' });
export type WebhookChangeRequest = z.infer<typeof webhookChangeRequestSchema>;

export const webhookViewSchema = z.object({
  id: z.uuid(),
  url: z.string(),
  events: z.array(z.enum(WEBHOOK_EVENT_TYPES)),
  description: z.string().nullable(),
  enabled: z.boolean(),
  /** Why the endpoint is disabled: `owner`, or a sentence saying its deliveries kept failing; null while enabled. */
  disabledReason: z.string().nullable(),
  disabledAt: isoTimestamp.nullable(),
  createdAt: isoTimestamp,
  /** Until when the secret replaced by the last rotation still signs (a second signature); null when none does. */
  previousSecretEndsAt: isoTimestamp.nullable(),
});
export type WebhookView = z.infer<typeof webhookViewSchema>;

/** `whsec_` and the base64 of 32 random bytes, as Standard Webhooks libraries read it. */
export const WEBHOOK_SECRET_PATTERN = /^whsec_[A-Za-z0-9+/]{43}=$/;

export const webhookCreatedResponseSchema = webhookViewSchema.extend({
  /** The signing secret, shown this once. */
  secret: z.string().regex(WEBHOOK_SECRET_PATTERN),
});
export type WebhookCreatedResponseBody = z.infer<typeof webhookCreatedResponseSchema>;

export const webhookListResponseSchema = z.object({ items: z.array(webhookViewSchema) });

const webhookDeliveryStatusSchema = z.enum(['pending', 'delivered', 'failed']);

export const webhookDeliveryViewSchema = z.object({
  /** The `webhook-id` header of every attempt of this delivery. */
  id: z.string(),
  eventId: z.uuid(),
  eventType: z.enum(WEBHOOK_EVENT_TYPES),
  /** pending (being tried), delivered (a 2xx answer), failed (given up after the retry window). */
  status: webhookDeliveryStatusSchema,
  attempts: z.number().int().nonnegative(),
  /** The HTTP status of the last attempt; null before one, or when it got no answer (lastError says why). */
  lastStatus: z.number().int().nullable(),
  /** What went wrong in the last attempt: timeout, connection_refused, blocked_address, response_too_large, redirect, http_status, ... */
  lastError: z.string().nullable(),
  lastResponseTimeMs: z.number().int().nullable(),
  /** When the next attempt is due; null once delivered or failed. */
  nextAttemptAt: isoTimestamp.nullable(),
  createdAt: isoTimestamp,
  deliveredAt: isoTimestamp.nullable(),
});
export type WebhookDeliveryView = z.infer<typeof webhookDeliveryViewSchema>;

export const WEBHOOK_DELIVERIES_DEFAULT_PAGE_SIZE = 50;
export const WEBHOOK_DELIVERIES_MAX_PAGE_SIZE = 200;
/** `<createdAt in µs>_<delivery id>` of the last delivery of a page: the next page starts after it. */
const WEBHOOK_DELIVERIES_CURSOR_PATTERN = /^[0-9]{1,18}_[0-9a-f-]{36}$/;

export const WEBHOOK_DELIVERIES_PAGING: CursorPaging = {
  pattern: WEBHOOK_DELIVERIES_CURSOR_PATTERN,
  defaultSize: WEBHOOK_DELIVERIES_DEFAULT_PAGE_SIZE,
  maxSize: WEBHOOK_DELIVERIES_MAX_PAGE_SIZE,
};

export const webhookDeliveriesQuerySchema = z.object(cursorPageQueryFields(WEBHOOK_DELIVERIES_PAGING)).strict();

export const webhookDeliveriesResponseSchema = z.object({
  items: z.array(webhookDeliveryViewSchema),
  /** Pass as `cursor` for older deliveries; null on the last page. */
  nextCursor: z.string().nullable(),
});
export type WebhookDeliveriesResponseBody = z.infer<typeof webhookDeliveriesResponseSchema>;

/** The JSON body of every delivery (Standard Webhooks' recommended shape). */
export interface WebhookPayload {
  type: WebhookEventType;
  /** When the event happened (not when this attempt was sent: that is the webhook-timestamp header). */
  timestamp: string;
  data: Record<string, unknown>;
}
