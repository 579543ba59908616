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
  /** Sent 30, 7 and 1 days before `expiresAt` (`daysAhead` says which), once each. */
  expiring: 'api_key.expiring.v1',
  /** Sent once, when `expiresAt` has passed. */
  expired: 'api_key.expired.v1',
  /** A secret-scanning report or an operator named the key's secret as leaked; the key is revoked with it. */
  exposed: 'api_key.exposed.v1',
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
  /** Expiring only: which reminder this is. */
  daysAhead: z.union([z.literal(30), z.literal(7), z.literal(1)]).optional(),
  /** Exposed only: who reported the leak, and where it was found when the report says. */
  exposure: z.object({ source: z.enum(['secret_scanning', 'operator']), url: z.string().nullable() }).optional(),
  /** Keys' outbox position: increases in commit order, so a consumer can ignore an older event arriving late. */
  sequence: z.number().int().positive(),
  occurredAt: isoTimestamp,
});
export type ApiKeyEventPayload = z.infer<typeof apiKeyEventPayloadSchema>;

/** The whole envelope of an API key event, as it travels on the bus. */
export const apiKeyEventSchema = busEventSchema(
  [
    API_KEY_EVENT_TYPES.created,
    API_KEY_EVENT_TYPES.revoked,
    API_KEY_EVENT_TYPES.rolled,
    API_KEY_EVENT_TYPES.expiring,
    API_KEY_EVENT_TYPES.expired,
    API_KEY_EVENT_TYPES.exposed,
  ],
  apiKeyEventPayloadSchema,
);
export type ApiKeyEvent = z.infer<typeof apiKeyEventSchema>;
