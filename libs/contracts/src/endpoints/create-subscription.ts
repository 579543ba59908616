import { type Endpoint, OWN_SUBSCRIPTIONS } from '../endpoint.js';
import { IDEMPOTENCY_KEY_HEADER, idempotencyKeySchema, subscriptionCreateRequestSchema, subscriptionViewSchema } from '../billing.js';

export const createSubscriptionEndpoint = {
  operationId: 'createSubscription',
  method: 'POST',
  path: '/api/Subscriptions',
  ...OWN_SUBSCRIPTIONS,
  summary: 'Subscribe the signed-in user to a plan',
  description:
    "Needs system:full-access (only the service's own web application holds it) and the user's JWT. One active subscription per user: " +
    'subscribing to another plan while active ends the current one now and starts the new period now (no proration); the same plan again ' +
    'while active gives 409. The Free plan gives 400, an unknown plan 404. Idempotency-Key header: the same key and body replay the first ' +
    'answer (Idempotent-Replayed: true); the same key with another body gives 422. There is no payment provider yet: activation is ' +
    'immediate (the payment seam approves everything). The role becomes Subscriber on the next request; plan_type shows at the next login.',
  headers: [
    {
      name: IDEMPOTENCY_KEY_HEADER,
      description: 'Optional: the same key with the same body replays the first answer; with another body it gives 422',
      schema: idempotencyKeySchema,
    },
  ],
  requestBody: subscriptionCreateRequestSchema,
  success: {
    status: 201,
    description: 'The subscription',
    schema: subscriptionViewSchema,
    headers: {
      'Idempotent-Replayed': {
        description: 'true when this answer replays the first one for the same Idempotency-Key',
        schema: { type: 'string', enum: ['true'] },
      },
    },
  },
  errors: {
    400: 'Invalid body, Idempotency-Key or the Free plan',
    404: 'No such plan',
    409: 'Already subscribed to this plan',
    422: 'Idempotency-Key reused with another body',
  },
} satisfies Endpoint;
