import { type Endpoint, OWN_WEBHOOKS } from '../endpoint.js';
import { webhookCreateRequestSchema, webhookCreatedResponseSchema } from '../webhooks.js';

export const createWebhookEndpoint = {
  operationId: 'createWebhook',
  method: 'POST',
  path: '/api/Webhooks',
  ...OWN_WEBHOOKS,
  summary: 'Register a webhook endpoint (account dashboard)',
  description:
    'The URL receives a signed POST (Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature) for each event listed. ' +
    'The URL must be https and its host public: a host that is or resolves to a private, loopback, link-local, CGNAT, multicast ' +
    'or cloud-metadata address is refused (400 webhook_url_not_allowed), unless the deployment allows private URLs. ' +
    "Answers the endpoint with its signing secret (whsec_...), shown this once. Needs system:full-access and the user's JWT.",
  requestBody: webhookCreateRequestSchema,
  success: {
    status: 201,
    description: 'The endpoint and its signing secret; the secret is shown this once',
    schema: webhookCreatedResponseSchema,
  },
  errors: { 409: 'The user already has the maximum number of endpoints' },
} satisfies Endpoint;
