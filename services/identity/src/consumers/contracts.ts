// The subscription-event contract (libs/contracts/src/subscription-events.ts).
export {
  PLAN_EVENTS_BINDING,
  PLAN_QUOTA_EVENT_TYPE,
  planQuotaEventSchema,
  type PlanQuotaEvent,
  LIFETIME_SUBSCRIPTION_END,
  SUBSCRIPTION_EVENTS_BINDING,
  SUBSCRIPTION_EVENT_TYPES,
  SUBSCRIPTION_ROUTING_KEYS,
  subscriptionEndOf,
  subscriptionEventSchema,
  type SubscriptionEvent,
  type SubscriptionEventKind,
} from '@acs/contracts';
