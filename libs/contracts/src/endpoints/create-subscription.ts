import { type Endpoint, OWN_SUBSCRIPTIONS } from '../endpoint.js';
import { subscriptionCreateRequestSchema, subscriptionViewSchema } from '../billing.js';

export const createSubscriptionEndpoint = {
  operationId: 'createSubscription',
  method: 'POST',
  path: '/api/Subscriptions',
  ...OWN_SUBSCRIPTIONS,
  summary: 'Subscribe the signed-in user to a plan',
  description:
    "Needs system:full-access (only the service's own web application holds it) and the user's JWT. One active subscription per user: " +
    'subscribing to another plan while active ends the current one now and starts the new period now (no proration); the same plan again ' +
    'while active gives 409. The Free plan gives 400, an unknown plan 404. Idempotency-Key (as on every POST and PATCH, kept by the gateway ' +
    'for 24 h) is also kept by billing with the subscription, in its database, so a retry is never charged twice. There is no payment provider yet: activation is ' +
    'immediate (the payment seam approves everything). The role becomes Subscriber on the next request; plan_type shows at the next login.',
  requestBody: subscriptionCreateRequestSchema,
  success: {
    status: 201,
    description: 'The subscription',
    schema: subscriptionViewSchema,
  },
  errors: {
    400: 'Invalid body, Idempotency-Key or the Free plan',
    404: 'No such plan',
    409: 'Already subscribed to this plan',
  },
} satisfies Endpoint;
