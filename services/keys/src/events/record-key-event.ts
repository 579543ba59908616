import { randomUUID } from 'node:crypto';
import {
  API_KEY_EVENT_TYPES,
  API_KEY_ROUTING_KEYS,
  apiKeyEventPayloadSchema,
  type ApiKeyEventKind,
  type ApiKeyEventPayload,
} from '@acs/contracts';
import type { Queryable } from '@acs/db';
import { currentTraceCarrier, insertOutboxEvent } from '@acs/outbox';
import type { ApiKey } from '../domain/api-key.js';
import { KEYS_OUTBOX } from './keys-outbox.js';

/** Which expiry reminder an api_key.expiring.v1 event is (the contract's daysAhead). */
export type ExpiryDaysAhead = 30 | 7 | 1;

/** Checked against the contract (without the sequence the relay adds) before it is stored, so a bad event fails the request, not the relay. */
const storedPayloadSchema = apiKeyEventPayloadSchema.omit({ sequence: true });

/**
 * Records the key's event in the outbox inside the caller's transaction: the change and its event
 * commit together or not at all (docs/architecture.md, decision 4). Names the key by id only:
 * never its secret, a hash or the key value. `extra`: the id when the caller already holds it (an expiry
 * reminder's row), and the reminder's daysAhead.
 */
export async function recordKeyEvent(
  tx: Queryable,
  kind: ApiKeyEventKind,
  apiKey: ApiKey,
  extra: { eventId?: string; daysAhead?: ExpiryDaysAhead } & Pick<ApiKeyEventPayload, 'exposure'> = {},
): Promise<string> {
  const eventId = extra.eventId ?? randomUUID();
  const occurredAt = new Date();
  const payload = storedPayloadSchema.parse({
    eventId,
    keyId: apiKey.id,
    userId: apiKey.ownerUserId,
    name: apiKey.name,
    scopes: apiKey.scopes,
    environment: apiKey.environment,
    expiresAt: apiKey.expiresAt?.toISOString() ?? null,
    ...(kind === 'rolled' ? { previousSecretEndsAt: apiKey.previousSecretEndsAt?.toISOString() ?? null } : {}),
    ...(extra.daysAhead ? { daysAhead: extra.daysAhead } : {}),
    ...(extra.exposure ? { exposure: extra.exposure } : {}),
    occurredAt: occurredAt.toISOString(),
  });
  await insertOutboxEvent(tx, KEYS_OUTBOX, {
    eventId,
    userId: apiKey.ownerUserId,
    type: API_KEY_EVENT_TYPES[kind],
    routingKey: API_KEY_ROUTING_KEYS[kind],
    payload,
    occurredAt,
    traceContext: currentTraceCarrier(),
  });
  return eventId;
}
