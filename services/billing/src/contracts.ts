// The billing contracts (libs/contracts/src/subscription-events.ts and billing.ts), in one place.
export * from '@acs/contracts';
