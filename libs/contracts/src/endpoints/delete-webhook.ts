import { type Endpoint, OWN_WEBHOOKS, ownRecord } from '../endpoint.js';
import { webhookViewSchema } from '../webhooks.js';

export const deleteWebhookEndpoint = {
  operationId: 'deleteWebhook',
  method: 'DELETE',
  path: '/api/Webhooks/{id}',
  ...OWN_WEBHOOKS,
  summary: 'Delete a webhook endpoint and its delivery log',
  description:
    "Deliveries not yet made are dropped. Someone else's endpoint, or an unknown id, gives 404. Needs system:full-access and the user's JWT.",
  ...ownRecord('webhook endpoint'),
  success: { status: 200, description: 'The endpoint as it was', schema: webhookViewSchema },
} satisfies Endpoint;
