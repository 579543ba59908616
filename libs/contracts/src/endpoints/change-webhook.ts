import { type Endpoint, OWN_WEBHOOKS, ownRecord } from '../endpoint.js';
import { webhookChangeRequestSchema, webhookViewSchema } from '../webhooks.js';

export const changeWebhookEndpoint = {
  operationId: 'changeWebhook',
  method: 'PATCH',
  path: '/api/Webhooks/{id}',
  ...OWN_WEBHOOKS,
  summary: 'Change a webhook endpoint: its URL, events, description, or pause / re-enable it',
  description:
    'Only the fields sent change. enabled: false pauses deliveries (they wait, and go out once it is enabled again); enabled: true ' +
    're-enables an endpoint, also one disabled after failing deliveries. A new URL is checked like at registration. ' +
    "Someone else's endpoint, or an unknown id, gives 404. Needs system:full-access and the user's JWT.",
  ...ownRecord('webhook endpoint'),
  requestBody: webhookChangeRequestSchema,
  success: { status: 200, description: 'The endpoint as changed', schema: webhookViewSchema },
} satisfies Endpoint;
