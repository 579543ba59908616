// Every public operation, in the order the gateway's route table and the OpenAPI document list them.
import { loginEndpoint } from './login.js';
import { registerEndpoint } from './register.js';
import { listDevicesEndpoint } from './list-devices.js';
import { registerDeviceEndpoint } from './register-device.js';
import { listCatalogEndpoint } from './list-catalog.js';
import { importCatalogEndpoint } from './import-catalog.js';
import { listPlansEndpoint } from './list-plans.js';
import { createSubscriptionEndpoint } from './create-subscription.js';
import { listSubscriptionsEndpoint } from './list-subscriptions.js';
import { cancelSubscriptionEndpoint } from './cancel-subscription.js';
import { listApiKeysEndpoint } from './list-api-keys.js';
import { createApiKeyEndpoint } from './create-api-key.js';
import { changeApiKeyEndpoint } from './change-api-key.js';
import { revokeApiKeyEndpoint } from './revoke-api-key.js';
import { rollApiKeyEndpoint } from './roll-api-key.js';
import { apiKeyUsageEndpoint } from './api-key-usage.js';
import { usageEndpoint } from './usage.js';
import { listSessionsEndpoint } from './list-sessions.js';
import { endSessionEndpoint } from './end-session.js';
import { endOtherSessionsEndpoint } from './end-other-sessions.js';
import { changePasswordEndpoint } from './change-password.js';
import { requestPasswordResetEndpoint } from './request-password-reset.js';
import { completePasswordResetEndpoint } from './complete-password-reset.js';
import { verifyEmailEndpoint } from './verify-email.js';
import { resendVerificationEndpoint } from './resend-verification.js';
import { getAccountEndpoint } from './get-account.js';
import { deleteAccountEndpoint } from './delete-account.js';
import { enrollTwoFactorEndpoint } from './enroll-two-factor.js';
import { confirmTwoFactorEndpoint } from './confirm-two-factor.js';
import { completeTwoFactorLoginEndpoint } from './complete-two-factor-login.js';
import { disableTwoFactorEndpoint } from './disable-two-factor.js';
import { regenerateRecoveryCodesEndpoint } from './regenerate-recovery-codes.js';
import { listAuditLogEndpoint } from './list-audit-log.js';
import { createWebhookEndpoint } from './create-webhook.js';
import { listWebhooksEndpoint } from './list-webhooks.js';
import { getWebhookEndpoint } from './get-webhook.js';
import { changeWebhookEndpoint } from './change-webhook.js';
import { deleteWebhookEndpoint } from './delete-webhook.js';
import { rotateWebhookSecretEndpoint } from './rotate-webhook-secret.js';
import { listWebhookDeliveriesEndpoint } from './list-webhook-deliveries.js';
import { replayWebhookDeliveryEndpoint } from './replay-webhook-delivery.js';

export const ENDPOINTS = [
  loginEndpoint,
  registerEndpoint,
  listDevicesEndpoint,
  registerDeviceEndpoint,
  listCatalogEndpoint,
  importCatalogEndpoint,
  listPlansEndpoint,
  createSubscriptionEndpoint,
  listSubscriptionsEndpoint,
  cancelSubscriptionEndpoint,
  listApiKeysEndpoint,
  createApiKeyEndpoint,
  changeApiKeyEndpoint,
  revokeApiKeyEndpoint,
  rollApiKeyEndpoint,
  apiKeyUsageEndpoint,
  usageEndpoint,
  listSessionsEndpoint,
  endSessionEndpoint,
  endOtherSessionsEndpoint,
  changePasswordEndpoint,
  requestPasswordResetEndpoint,
  completePasswordResetEndpoint,
  verifyEmailEndpoint,
  resendVerificationEndpoint,
  getAccountEndpoint,
  deleteAccountEndpoint,
  enrollTwoFactorEndpoint,
  confirmTwoFactorEndpoint,
  completeTwoFactorLoginEndpoint,
  disableTwoFactorEndpoint,
  regenerateRecoveryCodesEndpoint,
  listAuditLogEndpoint,
  createWebhookEndpoint,
  listWebhooksEndpoint,
  getWebhookEndpoint,
  changeWebhookEndpoint,
  deleteWebhookEndpoint,
  rotateWebhookSecretEndpoint,
  listWebhookDeliveriesEndpoint,
  replayWebhookDeliveryEndpoint,
] as const;

export * from './login.js';
export * from './register.js';
export * from './list-devices.js';
export * from './register-device.js';
export * from './list-catalog.js';
export * from './import-catalog.js';
export * from './list-plans.js';
export * from './create-subscription.js';
export * from './list-subscriptions.js';
export * from './cancel-subscription.js';
export * from './list-api-keys.js';
export * from './create-api-key.js';
export * from './change-api-key.js';
export * from './revoke-api-key.js';
export * from './roll-api-key.js';
export * from './api-key-usage.js';
export * from './usage.js';
export * from './list-sessions.js';
export * from './end-session.js';
export * from './end-other-sessions.js';
export * from './change-password.js';
export * from './request-password-reset.js';
export * from './complete-password-reset.js';
export * from './verify-email.js';
export * from './resend-verification.js';
export * from './get-account.js';
export * from './delete-account.js';
export * from './enroll-two-factor.js';
export * from './confirm-two-factor.js';
export * from './complete-two-factor-login.js';
export * from './disable-two-factor.js';
export * from './regenerate-recovery-codes.js';
export * from './list-audit-log.js';
export * from './create-webhook.js';
export * from './list-webhooks.js';
export * from './get-webhook.js';
export * from './change-webhook.js';
export * from './delete-webhook.js';
export * from './rotate-webhook-secret.js';
export * from './list-webhook-deliveries.js';
export * from './replay-webhook-delivery.js';
