import {
  apiKeyCreatedResponseSchema,
  apiKeyListResponseSchema,
  apiKeyRolledResponseSchema,
  apiKeyOperationUsageResponseSchema,
  apiKeyUsageResponseSchema,
  usageResponseSchema,
  apiKeyViewSchema,
  accountViewSchema,
  catalogPageSchema,
  verificationSentSchema,
  verifyEmailResponseSchema,
  changePasswordResponseSchema,
  completePasswordResetResponseSchema,
  passwordResetRequestedSchema,
  endOtherSessionsResponseSchema,
  sessionListSchema,
  sessionViewSchema,
  deviceListResponseSchema,
  deviceSchema,
  loginChallengeSchema,
  loginResponseSchema,
  twoFactorConfirmedSchema,
  twoFactorEnrollmentSchema,
  subscriptionListResponseSchema,
  subscriptionPlanListResponseSchema,
  subscriptionViewSchema,
  type RateLimits,
} from '@acs/contracts';
import type { Logger } from '@acs/logger';
import { z } from 'zod';
import type { GatewayClient } from './gateway-client.js';

/** Who is asking: our request id and logger, and the user's JWT where the route needs one. */
export interface CallerContext {
  requestId: string;
  log: Logger;
  token?: string | null;
  /** The browser's address: sent as X-Forwarded-For, which the gateway accepts from a system key. */
  clientAddress?: string;
}

export interface NewAccount {
  email: string;
  password: string;
  firstName: string;
  lastName: string;
}

export interface NewDevice {
  serialNumber: string;
  name: string;
  catalogEntryId?: number;
  firmwareVersion?: string;
}

// Path parameters come from our router, which admits only [A-Za-z0-9_-]; encoding is belt and braces.
const segment = encodeURIComponent;

/**
 * The gateway endpoints the dashboard uses, each answer parsed with the contract's zod schema.
 * The dashboard decides nothing about ownership: the user's JWT goes with every call and the
 * gateway and services answer 404 for anything that is not theirs.
 */
export function createAccountApi(gateway: GatewayClient) {
  return {
    /** The token, or for an account with two-factor sign-in the challenge its code completes (issue 32). */
    login: async (ctx: CallerContext, email: string, password: string) =>
      (
        await gateway.send(z.union([loginResponseSchema, loginChallengeSchema]), {
          ...ctx,
          method: 'POST',
          path: '/api/Users/Login',
          body: { email, password },
        })
      ).data,
    completeTwoFactorLogin: async (ctx: CallerContext, challenge: string, answer: { code: string } | { recoveryCode: string }) =>
      (
        await gateway.send(loginResponseSchema, {
          ...ctx,
          method: 'POST',
          path: '/api/Users/Login/TwoFactor',
          body: { challenge, ...answer },
        })
      ).data,
    enrollTwoFactor: async (ctx: CallerContext) =>
      (await gateway.send(twoFactorEnrollmentSchema, { ...ctx, method: 'POST', path: '/api/Users/TwoFactor/Enroll' })).data,
    confirmTwoFactor: async (ctx: CallerContext, code: string) =>
      (await gateway.send(twoFactorConfirmedSchema, { ...ctx, method: 'POST', path: '/api/Users/TwoFactor/Confirm', body: { code } })).data,
    // Any 2xx will do, whatever its body: identity may acknowledge a taken e-mail exactly like a
    // new account (nothing is shown from the answer; the sign-in that follows is the proof).
    register: async (ctx: CallerContext, account: NewAccount): Promise<void> => {
      await gateway.send(z.unknown(), { ...ctx, method: 'POST', path: '/api/Users/Register', body: account });
    },

    changePassword: async (ctx: CallerContext, currentPassword: string, newPassword: string) =>
      (
        await gateway.send(changePasswordResponseSchema, {
          ...ctx,
          method: 'POST',
          path: '/api/Users/Password',
          body: { currentPassword, newPassword },
        })
      ).data,
    requestPasswordReset: async (ctx: CallerContext, email: string) =>
      (await gateway.send(passwordResetRequestedSchema, { ...ctx, method: 'POST', path: '/api/Users/PasswordReset', body: { email } }))
        .data,
    completePasswordReset: async (ctx: CallerContext, token: string, newPassword: string) =>
      (
        await gateway.send(completePasswordResetResponseSchema, {
          ...ctx,
          method: 'POST',
          path: '/api/Users/PasswordReset/Complete',
          body: { token, newPassword },
        })
      ).data,
    getAccount: async (ctx: CallerContext) =>
      (await gateway.send(accountViewSchema, { ...ctx, method: 'GET', path: '/api/Users/Me' })).data,
    resendVerification: async (ctx: CallerContext) =>
      (await gateway.send(verificationSentSchema, { ...ctx, method: 'POST', path: '/api/Users/VerifyEmail/Resend' })).data,
    verifyEmail: async (ctx: CallerContext, token: string) =>
      (await gateway.send(verifyEmailResponseSchema, { ...ctx, method: 'POST', path: '/api/Users/VerifyEmail', body: { token } })).data,
    listSessions: async (ctx: CallerContext) =>
      (await gateway.send(sessionListSchema, { ...ctx, method: 'GET', path: '/api/Sessions' })).data.items,
    endOtherSessions: async (ctx: CallerContext) =>
      (await gateway.send(endOtherSessionsResponseSchema, { ...ctx, method: 'POST', path: '/api/Sessions/EndOthers' })).data,
    endSession: async (ctx: CallerContext, id: string) =>
      (await gateway.send(sessionViewSchema, { ...ctx, method: 'DELETE', path: `/api/Sessions/${segment(id)}` })).data,

    listKeys: async (ctx: CallerContext) =>
      (await gateway.send(apiKeyListResponseSchema, { ...ctx, method: 'GET', path: '/api/ApiKeys' })).data.items,
    createKey: async (
      ctx: CallerContext,
      input: { name: string; scopes: string; environment: 'live' | 'test'; expiresAt?: string; rateLimits?: RateLimits },
    ) => (await gateway.send(apiKeyCreatedResponseSchema, { ...ctx, method: 'POST', path: '/api/ApiKeys', body: input })).data,
    /** Name, scopes and limits at once (rateLimits null: back to the deployment's default). */
    changeKey: async (ctx: CallerContext, id: string, change: { name: string; scopes: string; rateLimits: RateLimits | null }) =>
      (await gateway.send(apiKeyViewSchema, { ...ctx, method: 'PATCH', path: `/api/ApiKeys/${segment(id)}`, body: change })).data,
    revokeKey: async (ctx: CallerContext, id: string) =>
      (await gateway.send(apiKeyViewSchema, { ...ctx, method: 'DELETE', path: `/api/ApiKeys/${segment(id)}` })).data,
    rollKey: async (ctx: CallerContext, id: string, graceSeconds: number) =>
      (
        await gateway.send(apiKeyRolledResponseSchema, {
          ...ctx,
          method: 'POST',
          path: `/api/ApiKeys/${segment(id)}/roll`,
          body: { graceSeconds },
        })
      ).data,
    /** The key's requests per operation over the last 7 days (issue 29). */
    keyOperationUsage: async (ctx: CallerContext, id: string) =>
      (
        await gateway.send(apiKeyOperationUsageResponseSchema, {
          ...ctx,
          method: 'GET',
          path: `/api/ApiKeys/${segment(id)}/usage?by=operation`,
        })
      ).data,
    /** This period's requests of all the user's keys against the plan quota, and per key (issue 29). */
    usage: async (ctx: CallerContext) => (await gateway.send(usageResponseSchema, { ...ctx, method: 'GET', path: '/api/Usage' })).data,
    keyUsage: async (ctx: CallerContext, id: string, days = 30) =>
      (await gateway.send(apiKeyUsageResponseSchema, { ...ctx, method: 'GET', path: `/api/ApiKeys/${segment(id)}/usage?days=${days}` }))
        .data,

    // Plans are public to any key with read:devices; no JWT needed.
    listPlans: async (ctx: CallerContext) =>
      (await gateway.send(subscriptionPlanListResponseSchema, { ...ctx, token: null, method: 'GET', path: '/api/SubscriptionPlans' })).data
        .items,
    listSubscriptions: async (ctx: CallerContext) =>
      (await gateway.send(subscriptionListResponseSchema, { ...ctx, method: 'GET', path: '/api/Subscriptions' })).data.items,
    subscribe: async (ctx: CallerContext, planId: string, idempotencyKey: string) =>
      (await gateway.send(subscriptionViewSchema, { ...ctx, method: 'POST', path: '/api/Subscriptions', body: { planId }, idempotencyKey }))
        .data,
    cancelSubscription: async (ctx: CallerContext, id: string) =>
      (await gateway.send(subscriptionViewSchema, { ...ctx, method: 'DELETE', path: `/api/Subscriptions/${segment(id)}` })).data,

    /** The catalog's search (a substring of "<brand> <model>"), the dashboard's own key reading it. */
    searchCatalog: async (ctx: CallerContext, q: string, pageSize = 8) =>
      (
        await gateway.send(catalogPageSchema, {
          ...ctx,
          token: null,
          method: 'GET',
          path: `/api/Dac?q=${encodeURIComponent(q)}&pageSize=${pageSize}`,
        })
      ).data,

    listDevices: async (ctx: CallerContext) =>
      (await gateway.send(deviceListResponseSchema, { ...ctx, method: 'GET', path: '/api/Devices' })).data,
    registerDevice: async (ctx: CallerContext, device: NewDevice) => {
      const { status, data } = await gateway.send(deviceSchema, { ...ctx, method: 'POST', path: '/api/Devices/Register', body: device });
      return { device: data, created: status === 201 };
    },
  };
}

export type AccountApi = ReturnType<typeof createAccountApi>;
