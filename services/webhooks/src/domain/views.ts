import type { WebhookDeliveryView, WebhookEventType, WebhookView } from '@acs/contracts';
import type { DeliveryRow } from '../data-access/deliveries-repository.js';
import type { EndpointRow } from '../data-access/endpoints-repository.js';

/** An endpoint as the API shows it: never its secrets. */
export function endpointView(row: EndpointRow): WebhookView {
  const previousLive = row.previous_secret_ends_at !== null && row.previous_secret_ends_at.getTime() > Date.now();
  return {
    id: row.id,
    url: row.url,
    events: row.events as WebhookEventType[],
    description: row.description,
    enabled: row.enabled,
    disabledReason: row.disabled_reason,
    disabledAt: row.disabled_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    previousSecretEndsAt: previousLive ? row.previous_secret_ends_at!.toISOString() : null,
  };
}

export function deliveryView(row: DeliveryRow): WebhookDeliveryView {
  return {
    id: row.id,
    eventId: row.event_id,
    eventType: row.event_type as WebhookEventType,
    status: row.status,
    attempts: row.attempts,
    lastStatus: row.last_status,
    lastError: row.last_error,
    lastResponseTimeMs: row.last_duration_ms,
    nextAttemptAt: row.next_attempt_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    deliveredAt: row.delivered_at?.toISOString() ?? null,
  };
}

/** The cursor of a page ending with `row` (contracts: `<createdAt in µs>_<id>`). */
export const cursorOf = (row: DeliveryRow): string => `${row.created_us}_${row.id}`;

export function parseCursor(cursor: string | undefined): { createdUs: string; id: string } | null {
  if (cursor === undefined) return null;
  const separator = cursor.indexOf('_');
  return { createdUs: cursor.slice(0, separator), id: cursor.slice(separator + 1) };
}
