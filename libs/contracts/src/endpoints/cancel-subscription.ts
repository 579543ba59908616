import { type Endpoint, ownRecord, OWN_SUBSCRIPTIONS } from '../endpoint.js';
import { subscriptionViewSchema } from '../billing.js';

export const cancelSubscriptionEndpoint = {
  operationId: 'cancelSubscription',
  method: 'DELETE',
  path: '/api/Subscriptions/{id}',
  ...OWN_SUBSCRIPTIONS,
  summary: 'Cancel a subscription at the end of its period',
  description:
    'Sets cancelAtPeriodEnd; the status and the Subscriber role stay until the period ends (a Lifetime subscription ends at once). ' +
    "Cancelling twice answers the same. Someone else's or an unknown id gives 404; an ended subscription 409.",
  ...ownRecord('subscription', { 409: 'The subscription has already ended' }),
  success: { status: 200, description: 'The subscription', schema: subscriptionViewSchema },
} satisfies Endpoint;
