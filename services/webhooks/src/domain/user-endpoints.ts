import {
  WEBHOOK_MAX_ENDPOINTS_PER_USER,
  type WebhookChangeRequest,
  type WebhookCreateRequest,
  type WebhookCreatedResponseBody,
  type WebhookDeliveriesResponseBody,
  type WebhookDeliveryView,
  type WebhookView,
} from '@acs/contracts';
import { conflict, errorOf, notFound } from '@acs/errors';
import { deliveriesPage, replayDelivery } from '../data-access/deliveries-repository.js';
import {
  countEndpoints,
  deleteEndpoint,
  findOwnEndpoint,
  insertEndpoint,
  isUuid,
  listEndpoints,
  replaceSecret,
  updateEndpoint,
  type EndpointRow,
} from '../data-access/endpoints-repository.js';
import type { WebhooksDeps } from './deps.js';
import { newWebhookSecret } from './signing.js';
import { urlRefusal } from './url-policy.js';
import { cursorOf, deliveryView, endpointView, parseCursor } from './views.js';

/** How long a replaced secret keeps signing after a rotation. */
const PREVIOUS_SECRET_MS = 24 * 3600_000;
/** The reason an endpoint paused through the API shows. */
const OWNER_DISABLED = 'owner';

const noSuchEndpoint = () => notFound('No such webhook endpoint', 'webhook_not_found');

/** 400 naming `url` when the address policy refuses it (domain/url-policy.ts). */
async function checkUrl(deps: WebhooksDeps, url: string): Promise<void> {
  const refusal = await urlRefusal(url, deps.urlPolicy);
  if (refusal === null) return;
  throw errorOf('bad_request', refusal, {
    code: 'webhook_url_not_allowed',
    details: [{ path: 'body.url', message: refusal }],
    hint: 'Use an https URL whose host resolves only to public addresses.',
  });
}

async function ownEndpoint(deps: WebhooksDeps, userId: number, id: string): Promise<EndpointRow> {
  const row = await findOwnEndpoint(deps.db, userId, id);
  if (!row) throw noSuchEndpoint();
  return row;
}

/** Events listed once each, in the contract's order of the request. */
const distinct = (events: readonly string[]): string[] => [...new Set(events)];

export async function createEndpoint(deps: WebhooksDeps, userId: number, body: WebhookCreateRequest): Promise<WebhookCreatedResponseBody> {
  await checkUrl(deps, body.url);
  if ((await countEndpoints(deps.db, userId)) >= WEBHOOK_MAX_ENDPOINTS_PER_USER)
    throw conflict(`A user may register at most ${WEBHOOK_MAX_ENDPOINTS_PER_USER} webhook endpoints`, {
      code: 'webhook_limit_reached',
      hint: 'Delete an endpoint you no longer use, or subscribe an existing one to more events.',
    });
  const secret = newWebhookSecret();
  const row = await insertEndpoint(deps.db, {
    userId,
    url: body.url,
    description: body.description ?? null,
    events: distinct(body.events),
    secretBox: deps.secrets.seal(secret),
  });
  deps.logger.info({ endpointId: row.id, userId, events: row.events }, 'webhook endpoint registered');
  return { ...endpointView(row), secret };
}

export async function listOwnEndpoints(deps: WebhooksDeps, userId: number): Promise<WebhookView[]> {
  return (await listEndpoints(deps.db, userId)).map(endpointView);
}

export async function getOwnEndpoint(deps: WebhooksDeps, userId: number, id: string): Promise<WebhookView> {
  return endpointView(await ownEndpoint(deps, userId, id));
}

export async function changeEndpoint(deps: WebhooksDeps, userId: number, id: string, body: WebhookChangeRequest): Promise<WebhookView> {
  await ownEndpoint(deps, userId, id);
  if (body.url !== undefined) await checkUrl(deps, body.url);
  const row = await updateEndpoint(deps.db, id, {
    ...(body.url !== undefined ? { url: body.url } : {}),
    ...(body.events !== undefined ? { events: distinct(body.events) } : {}),
    ...(body.description !== undefined ? { description: body.description } : {}),
    ...(body.enabled !== undefined ? { enabled: body.enabled ? true : OWNER_DISABLED } : {}),
  });
  // Re-enabled: its waiting deliveries may be due.
  if (body.enabled === true) deps.wakeSender();
  return endpointView(row);
}

export async function removeEndpoint(deps: WebhooksDeps, userId: number, id: string): Promise<WebhookView> {
  const row = await ownEndpoint(deps, userId, id);
  await deleteEndpoint(deps.db, id);
  deps.logger.info({ endpointId: id, userId }, 'webhook endpoint deleted');
  return endpointView(row);
}

/** A new secret; the current one keeps signing (a second signature) for 24 h, and an older one still live stops now. */
export async function rotateSecret(deps: WebhooksDeps, userId: number, id: string): Promise<WebhookCreatedResponseBody> {
  const secret = newWebhookSecret();
  const row = await deps.db.transaction(async (tx) => {
    const current = await findOwnEndpoint(tx, userId, id, true);
    if (!current) throw noSuchEndpoint();
    return replaceSecret(tx, id, deps.secrets.seal(secret), current.secret_box, new Date(Date.now() + PREVIOUS_SECRET_MS));
  });
  deps.logger.info({ endpointId: id, userId }, 'webhook secret rotated');
  return { ...endpointView(row), secret };
}

export async function listDeliveries(
  deps: WebhooksDeps,
  userId: number,
  id: string,
  query: { cursor?: string | undefined; pageSize: number },
): Promise<WebhookDeliveriesResponseBody> {
  await ownEndpoint(deps, userId, id);
  const rows = await deliveriesPage(deps.db, id, query.pageSize + 1, parseCursor(query.cursor));
  const page = rows.slice(0, query.pageSize);
  return { items: page.map(deliveryView), nextCursor: rows.length > query.pageSize ? cursorOf(page.at(-1)!) : null };
}

export async function replay(deps: WebhooksDeps, userId: number, id: string, deliveryId: string): Promise<WebhookDeliveryView> {
  const endpoint = await ownEndpoint(deps, userId, id);
  if (!isUuid(deliveryId)) throw notFound('No such delivery of this endpoint', 'webhook_delivery_not_found');
  if (!endpoint.enabled)
    throw conflict('The endpoint is disabled: enable it (PATCH enabled: true) before replaying a delivery', { code: 'webhook_disabled' });
  const row = await replayDelivery(deps.db, id, deliveryId);
  if (!row) throw notFound('No such delivery of this endpoint', 'webhook_delivery_not_found');
  deps.wakeSender();
  return deliveryView(row);
}
