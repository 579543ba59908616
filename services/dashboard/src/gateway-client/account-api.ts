import { accountCalls } from './account-calls.js';
import { deviceCalls } from './device-calls.js';
import type { GatewayClient } from './gateway-client.js';
import { keyCalls } from './key-calls.js';
import { signInCalls } from './sign-in-calls.js';
import { subscriptionCalls } from './subscription-calls.js';
import { webhookCalls } from './webhook-calls.js';

export type { NewDevice } from './device-calls.js';
export type { CallerContext } from './operation-call.js';
export type { NewAccount } from './sign-in-calls.js';

/**
 * The gateway endpoints the dashboard uses, each answer parsed with the contract's zod schema.
 * The dashboard decides nothing about ownership: the user's JWT goes with every call and the
 * gateway and services answer 404 for anything that is not theirs.
 */
export function createAccountApi(gateway: GatewayClient) {
  return {
    ...signInCalls(gateway),
    ...accountCalls(gateway),
    ...webhookCalls(gateway),
    ...keyCalls(gateway),
    ...subscriptionCalls(gateway),
    ...deviceCalls(gateway),
  };
}

export type AccountApi = ReturnType<typeof createAccountApi>;
