import { type Endpoint, OWN_WEBHOOKS, ownRecord } from '../endpoint.js';
import { cursorPageParameters } from '../cursor-page.js';
import {
  WEBHOOK_DELIVERIES_DEFAULT_PAGE_SIZE,
  WEBHOOK_DELIVERIES_MAX_PAGE_SIZE,
  WEBHOOK_DELIVERIES_PAGING,
  webhookDeliveriesQuerySchema,
  webhookDeliveriesResponseSchema,
} from '../webhooks.js';

export const listWebhookDeliveriesEndpoint = {
  operationId: 'listWebhookDeliveries',
  method: 'GET',
  path: '/api/Webhooks/{id}/Deliveries',
  ...OWN_WEBHOOKS,
  summary: "A webhook endpoint's delivery log",
  description:
    'Newest first: the event, its status, the attempts made, the last response status and time, and when the next attempt is due. ' +
    `pageSize defaults to ${WEBHOOK_DELIVERIES_DEFAULT_PAGE_SIZE}, at most ${WEBHOOK_DELIVERIES_MAX_PAGE_SIZE}; pass nextCursor as cursor for older ` +
    "deliveries (null on the last page). Someone else's endpoint, or an unknown id, gives 404. Needs system:full-access and the user's JWT.",
  ...ownRecord('webhook endpoint'),
  query: {
    schema: webhookDeliveriesQuerySchema,
    parameters: cursorPageParameters(WEBHOOK_DELIVERIES_PAGING, 'Deliveries per page'),
  },
  success: { status: 200, description: 'A page of the delivery log', schema: webhookDeliveriesResponseSchema },
} satisfies Endpoint;
