// What the embedded launcher and the tests use; the standalone entry is main.ts.
export { identityConfigSchema, type IdentityConfig } from './config.js';
export { startIdentityService, openIdentityDeps, openIdentityStore, IDENTITY_MIGRATIONS_DIR, type IdentityService } from './service.js';
export type { IdentityDeps, IdentitySettings, UserStore } from './domain/deps.js';
export type { User } from './domain/user.js';
export { registerUser } from './domain/register.js';
export { setUserRole, setTrialEnd } from './domain/change-user.js';
export { PASSWORD_POLICY, passwordProblems } from './domain/password-policy.js';
export { INVALID_CREDENTIALS } from './domain/login.js';
export {
  APPLY_SPAN_NAME,
  applySubscriptionEvent,
  parseSubscriptionEvent,
  startSubscriptionEventsConsumer,
  InvalidSubscriptionEventError,
  SUBSCRIPTION_EVENTS_QUEUE,
  type ApplyOutcome,
  type SubscriptionConsumerOptions,
} from './consumers/subscription-events-consumer.js';
export { devMailboxFile } from './mail/mailbox-file-mailer.js';
export { sealPlaintextSecrets } from './domain/seal-plaintext-secrets.js';
