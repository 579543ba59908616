import { z } from 'zod';
import { busEventSchema, routingKeysOf } from './bus-event.js';

/**
 * API key events: keys publishes them through its outbox (migrations/007_outbox.sql) to the same
 * topic exchange as billing's subscription events, in the transaction of the change; webhooks and
 * notifications consume them. Never a secret, a hash or the key itself: the id names the key. A
 * breaking change gets a new `.vN` type published next to the old one (subscription-events.ts).
 */
export const API_KEY_EVENT_TYPES = {
  created: 'api_key.created.v1',
  revoked: 'api_key.revoked.v1',
  rolled: 'api_key.rolled.v1',
} as const;

export type ApiKeyEventKind = keyof typeof API_KEY_EVENT_TYPES;

/** Routing keys on the exchange; consumers bind `api_key.*`. */
export const API_KEY_ROUTING_KEYS = routingKeysOf(API_KEY_EVENT_TYPES);

export const API_KEY_EVENTS_BINDING = 'api_key.*';

const isoTimestamp = z.iso.datetime({ offset: true });

export const apiKeyEventPayloadSchema = z.object({
  /** Same as the envelope id: consumers record it to apply each event once. */
  eventId: z.uuid(),
  keyId: z.uuid(),
  /** The owner; null for a system key (operators' CLI, the seed). */
  userId: z.number().int().positive().nullable(),
  name: z.string(),
  scopes: z.array(z.string()),
  environment: z.enum(['live', 'test']),
  expiresAt: isoTimestamp.nullable(),
  /** Rolled only: until when the replaced secret still works (null: it stopped at once). */
  previousSecretEndsAt: isoTimestamp.nullable().optional(),
  /** Keys' outbox position: increases in commit order, so a consumer can ignore an older event arriving late. */
  sequence: z.number().int().positive(),
  occurredAt: isoTimestamp,
});
export type ApiKeyEventPayload = z.infer<typeof apiKeyEventPayloadSchema>;

/** The whole envelope of an API key event, as it travels on the bus. */
export const apiKeyEventSchema = busEventSchema(
  [API_KEY_EVENT_TYPES.created, API_KEY_EVENT_TYPES.revoked, API_KEY_EVENT_TYPES.rolled],
  apiKeyEventPayloadSchema,
);
export type ApiKeyEvent = z.infer<typeof apiKeyEventSchema>;
