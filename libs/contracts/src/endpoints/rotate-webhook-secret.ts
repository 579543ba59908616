import { type Endpoint, NO_FIELDS_BODY, OWN_WEBHOOKS, ownRecord } from '../endpoint.js';
import { webhookCreatedResponseSchema } from '../webhooks.js';

export const rotateWebhookSecretEndpoint = {
  operationId: 'rotateWebhookSecret',
  method: 'POST',
  path: '/api/Webhooks/{id}/RotateSecret',
  ...OWN_WEBHOOKS,
  summary: 'Give a webhook endpoint a new signing secret without downtime',
  description:
    'Answers the endpoint with its new secret, shown this once. For 24 hours (previousSecretEndsAt) every delivery carries two ' +
    'signatures in webhook-signature, one per secret, so a receiver verifying with either accepts it; rotating again during that ' +
    "time ends the older secret at once. Someone else's endpoint, or an unknown id, gives 404. Needs system:full-access and the user's JWT.",
  ...ownRecord('webhook endpoint'),
  ...NO_FIELDS_BODY,
  success: {
    status: 200,
    description: 'The endpoint and its new secret; the secret is shown this once',
    schema: webhookCreatedResponseSchema,
  },
} satisfies Endpoint;
