import { cancelSubscriptionEndpoint, createSubscriptionEndpoint, listPlansEndpoint, listSubscriptionsEndpoint } from '@acs/contracts';
import type { GatewayClient } from './gateway-client.js';
import { answerOf, type CallerContext } from './operation-call.js';

/** The plans on offer and the user's subscriptions: subscribe and cancel. */
export function subscriptionCalls(gateway: GatewayClient) {
  return {
    // Plans are public to any key with read:devices; no JWT needed.
    listPlans: async (ctx: CallerContext) => (await answerOf(gateway, listPlansEndpoint, ctx, { token: null })).items,
    listSubscriptions: async (ctx: CallerContext) => (await answerOf(gateway, listSubscriptionsEndpoint, ctx)).items,
    subscribe: async (ctx: CallerContext, planId: string, idempotencyKey: string) =>
      answerOf(gateway, createSubscriptionEndpoint, ctx, { body: { planId }, idempotencyKey }),
    cancelSubscription: async (ctx: CallerContext, id: string) => answerOf(gateway, cancelSubscriptionEndpoint, ctx, { id }),
  };
}
