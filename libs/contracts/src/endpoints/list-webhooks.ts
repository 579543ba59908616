import { type Endpoint, OWN_WEBHOOKS } from '../endpoint.js';
import { webhookListResponseSchema } from '../webhooks.js';

export const listWebhooksEndpoint = {
  operationId: 'listWebhooks',
  method: 'GET',
  path: '/api/Webhooks',
  ...OWN_WEBHOOKS,
  summary: "The signed-in user's webhook endpoints (account dashboard)",
  description:
    'Newest first, without their secrets. A disabled endpoint says why (disabledReason): its owner paused it, or its deliveries ' +
    "kept failing for the whole retry window. Needs system:full-access and the user's JWT.",
  success: { status: 200, description: 'The endpoints', schema: webhookListResponseSchema },
} satisfies Endpoint;
