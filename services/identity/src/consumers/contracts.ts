// The subscription-event contract (libs/contracts/src/subscription-events.ts).
export {
  LIFETIME_SUBSCRIPTION_END,
  SUBSCRIPTION_EVENTS_BINDING,
  SUBSCRIPTION_EVENT_TYPES,
  SUBSCRIPTION_ROUTING_KEYS,
  subscriptionEndOf,
  subscriptionEventSchema,
  type SubscriptionEvent,
  type SubscriptionEventKind,
} from '@acs/contracts';
