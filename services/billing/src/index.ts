// What the embedded launcher and the tests use; the standalone entry is main.ts.
export { billingConfigSchema, type BillingConfig } from './config.js';
export { startBillingService, BILLING_MIGRATIONS_DIR, type BillingService, type BillingServiceOptions } from './service.js';
export type { BillingDeps, BillingSettings } from './domain/deps.js';
export { noPaymentGateway, type PaymentGateway, type PaymentDecision, type PaymentRequest } from './domain/payment-gateway.js';
export type { OutboxRelay } from '@acs/outbox';
