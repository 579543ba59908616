import { type Endpoint, OWN_WEBHOOKS, ownRecord } from '../endpoint.js';
import { webhookViewSchema } from '../webhooks.js';

export const getWebhookEndpoint = {
  operationId: 'getWebhook',
  method: 'GET',
  path: '/api/Webhooks/{id}',
  ...OWN_WEBHOOKS,
  summary: 'One of the user’s webhook endpoints',
  description: "Without its secret. Someone else's endpoint, or an unknown id, gives 404. Needs system:full-access and the user's JWT.",
  ...ownRecord('webhook endpoint'),
  success: { status: 200, description: 'The endpoint', schema: webhookViewSchema },
} satisfies Endpoint;
