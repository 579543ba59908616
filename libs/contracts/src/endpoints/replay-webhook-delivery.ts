import { type Endpoint, NO_FIELDS_BODY, OWN_WEBHOOKS } from '../endpoint.js';
import { webhookDeliveryViewSchema } from '../webhooks.js';

const uuid = (what: string) => ({
  description: `id of the ${what} (a UUID; any other value, or one of someone else's, answers 404)`,
  schema: { type: 'string', format: 'uuid' },
});

export const replayWebhookDeliveryEndpoint = {
  operationId: 'replayWebhookDelivery',
  method: 'POST',
  path: '/api/Webhooks/{id}/Deliveries/{deliveryId}/Replay',
  ...OWN_WEBHOOKS,
  summary: 'Send a delivery again now',
  description:
    'Delivered or failed, the delivery is sent again at once with the same webhook-id and body (a receiver that keeps the ids it ' +
    'handled can tell it is the same event) and a fresh retry schedule. A disabled endpoint is 409 (enable it first). ' +
    "Someone else's endpoint or delivery, or an unknown id, gives 404. Needs system:full-access and the user's JWT.",
  pathParameters: { id: uuid('webhook endpoint'), deliveryId: uuid('delivery') },
  ...NO_FIELDS_BODY,
  errors: { 404: 'No such endpoint or delivery of this user', 409: 'The endpoint is disabled' },
  success: { status: 202, description: 'The delivery, due now', schema: webhookDeliveryViewSchema },
} satisfies Endpoint;
