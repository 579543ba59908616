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

/** Checked against the contract (without the sequence the relay adds) before it is stored, so a bad event fails the request, not the relay. */
const storedPayloadSchema = apiKeyEventPayloadSchema.omit({ sequence: true });

/**
 * Records the key's event in the outbox inside the caller's transaction: the change and its event
 * commit together or not at all (docs/architecture.md, decision 4). Names the key by id only:
 * never its secret, a hash or the key value.
 */
export async function recordKeyEvent(
  tx: Queryable,
  kind: ApiKeyEventKind,
  apiKey: ApiKey,
  extra: Pick<ApiKeyEventPayload, 'exposure'> = {},
): Promise<string> {
  const eventId = randomUUID();
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
    ...extra,
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
