import { NO_USER, type Endpoint } from '../endpoint.js';
import { subscriptionPlanListResponseSchema } from '../billing.js';

export const listPlansEndpoint = {
  operationId: 'listPlans',
  method: 'GET',
  path: '/api/SubscriptionPlans',
  scope: 'read:devices',
  user: NO_USER,
  upstream: 'billing',
  summary: 'List subscription plans',
  description:
    "Free (planType 0), Monthly (1), Yearly (2), Lifetime (3), with price, currency, billing interval and quota (requests per UTC month and day, all of a subscriber's keys together).",
  success: { status: 200, description: 'The plans', schema: subscriptionPlanListResponseSchema },
} satisfies Endpoint;
