import { type Endpoint, OWN_SUBSCRIPTIONS } from '../endpoint.js';
import { subscriptionListResponseSchema } from '../billing.js';

export const listSubscriptionsEndpoint = {
  operationId: 'listSubscriptions',
  method: 'GET',
  path: '/api/Subscriptions',
  ...OWN_SUBSCRIPTIONS,
  summary: "List the signed-in user's subscriptions",
  description:
    "Newest first. status: active, expired (period over), replaced (by another plan) or canceled. Needs system:full-access and the user's JWT.",
  success: { status: 200, description: 'The subscriptions', schema: subscriptionListResponseSchema },
} satisfies Endpoint;
