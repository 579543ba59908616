import {
  apiKeyCreatedResponseSchema,
  apiKeyListResponseSchema,
  apiKeyRolledResponseSchema,
  apiKeyOperationUsageResponseSchema,
  apiKeyUsageResponseSchema,
  usageResponseSchema,
  apiKeyViewSchema,
  accountViewSchema,
  auditLogResponseSchema,
  deleteAccountResponseSchema,
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
  twoFactorDisabledSchema,
  twoFactorEnrollmentSchema,
  subscriptionListResponseSchema,
  subscriptionPlanListResponseSchema,
  subscriptionViewSchema,
  type RateLimits,
} from '@acs/contracts';
import type { Logger } from '@acs/logger';
import { z } from 'zod';
import type { GatewayCall, GatewayClient } from './gateway-client.js';

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

/** The answer's body, parsed with `schema`: all most calls need of it (the status only tells a device registration from a repeat). */
async function bodyOf<S extends z.ZodType>(gateway: GatewayClient, schema: S, call: GatewayCall): Promise<z.infer<S>> {
  return (await gateway.send(schema, call)).data;
}

/**
 * The gateway endpoints the dashboard uses, each answer parsed with the contract's zod schema.
 * The dashboard decides nothing about ownership: the user's JWT goes with every call and the
 * gateway and services answer 404 for anything that is not theirs.
 */
export function createAccountApi(gateway: GatewayClient) {
  return {
    /** The token, or for an account with two-factor sign-in the challenge its code completes (issue 32). */
    login: async (ctx: CallerContext, email: string, password: string) =>
      bodyOf(gateway, z.union([loginResponseSchema, loginChallengeSchema]), {
        ...ctx,
        method: 'POST',
        path: '/api/Users/Login',
        body: { email, password },
      }),
    completeTwoFactorLogin: async (ctx: CallerContext, challenge: string, answer: { code: string } | { recoveryCode: string }) =>
      bodyOf(gateway, loginResponseSchema, {
        ...ctx,
        method: 'POST',
        path: '/api/Users/Login/TwoFactor',
        body: { challenge, ...answer },
      }),
    enrollTwoFactor: async (ctx: CallerContext) =>
      bodyOf(gateway, twoFactorEnrollmentSchema, { ...ctx, method: 'POST', path: '/api/Users/TwoFactor/Enroll' }),
    disableTwoFactor: async (ctx: CallerContext, password: string, code: string) =>
      bodyOf(gateway, twoFactorDisabledSchema, { ...ctx, method: 'POST', path: '/api/Users/TwoFactor/Disable', body: { password, code } }),
    regenerateRecoveryCodes: async (ctx: CallerContext, code: string) =>
      bodyOf(gateway, twoFactorConfirmedSchema, { ...ctx, method: 'POST', path: '/api/Users/TwoFactor/RecoveryCodes', body: { code } }),
    confirmTwoFactor: async (ctx: CallerContext, code: string) =>
      bodyOf(gateway, twoFactorConfirmedSchema, { ...ctx, method: 'POST', path: '/api/Users/TwoFactor/Confirm', body: { code } }),
    // Any 2xx will do, whatever its body: identity may acknowledge a taken e-mail exactly like a
    // new account (nothing is shown from the answer; the sign-in that follows is the proof).
    register: async (ctx: CallerContext, account: NewAccount): Promise<void> => {
      await gateway.send(z.unknown(), { ...ctx, method: 'POST', path: '/api/Users/Register', body: account });
    },

    changePassword: async (ctx: CallerContext, currentPassword: string, newPassword: string) =>
      bodyOf(gateway, changePasswordResponseSchema, {
        ...ctx,
        method: 'POST',
        path: '/api/Users/Password',
        body: { currentPassword, newPassword },
      }),
    requestPasswordReset: async (ctx: CallerContext, email: string) =>
      bodyOf(gateway, passwordResetRequestedSchema, { ...ctx, method: 'POST', path: '/api/Users/PasswordReset', body: { email } }),
    completePasswordReset: async (ctx: CallerContext, token: string, newPassword: string) =>
      bodyOf(gateway, completePasswordResetResponseSchema, {
        ...ctx,
        method: 'POST',
        path: '/api/Users/PasswordReset/Complete',
        body: { token, newPassword },
      }),
    getAccount: async (ctx: CallerContext) => bodyOf(gateway, accountViewSchema, { ...ctx, method: 'GET', path: '/api/Users/Me' }),
    resendVerification: async (ctx: CallerContext) =>
      bodyOf(gateway, verificationSentSchema, { ...ctx, method: 'POST', path: '/api/Users/VerifyEmail/Resend' }),
    verifyEmail: async (ctx: CallerContext, token: string) =>
      bodyOf(gateway, verifyEmailResponseSchema, { ...ctx, method: 'POST', path: '/api/Users/VerifyEmail', body: { token } }),
    listSessions: async (ctx: CallerContext) =>
      (await bodyOf(gateway, sessionListSchema, { ...ctx, method: 'GET', path: '/api/Sessions' })).items,
    /** One page of the user's audit trail, newest first; `cursor` is the nextCursor of the page before. */
    auditLogPage: async (ctx: CallerContext, cursor: string | null) =>
      bodyOf(gateway, auditLogResponseSchema, {
        ...ctx,
        method: 'GET',
        path: `/api/AuditLog?pageSize=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      }),
    deleteAccount: async (ctx: CallerContext, password: string, code: string | undefined) =>
      bodyOf(gateway, deleteAccountResponseSchema, {
        ...ctx,
        method: 'DELETE',
        path: '/api/Users/Me',
        body: code ? { password, code } : { password },
      }),
    endOtherSessions: async (ctx: CallerContext) =>
      bodyOf(gateway, endOtherSessionsResponseSchema, { ...ctx, method: 'POST', path: '/api/Sessions/EndOthers' }),
    endSession: async (ctx: CallerContext, id: string) =>
      bodyOf(gateway, sessionViewSchema, { ...ctx, method: 'DELETE', path: `/api/Sessions/${segment(id)}` }),

    listKeys: async (ctx: CallerContext) =>
      (await bodyOf(gateway, apiKeyListResponseSchema, { ...ctx, method: 'GET', path: '/api/ApiKeys' })).items,
    createKey: async (
      ctx: CallerContext,
      input: { name: string; scopes: string; environment: 'live' | 'test'; expiresAt?: string; rateLimits?: RateLimits },
    ) => bodyOf(gateway, apiKeyCreatedResponseSchema, { ...ctx, method: 'POST', path: '/api/ApiKeys', body: input }),
    /** Name, scopes and limits at once (rateLimits null: back to the deployment's default). */
    changeKey: async (ctx: CallerContext, id: string, change: { name: string; scopes: string; rateLimits: RateLimits | null }) =>
      bodyOf(gateway, apiKeyViewSchema, { ...ctx, method: 'PATCH', path: `/api/ApiKeys/${segment(id)}`, body: change }),
    revokeKey: async (ctx: CallerContext, id: string) =>
      bodyOf(gateway, apiKeyViewSchema, { ...ctx, method: 'DELETE', path: `/api/ApiKeys/${segment(id)}` }),
    rollKey: async (ctx: CallerContext, id: string, graceSeconds: number) =>
      bodyOf(gateway, apiKeyRolledResponseSchema, {
        ...ctx,
        method: 'POST',
        path: `/api/ApiKeys/${segment(id)}/roll`,
        body: { graceSeconds },
      }),
    /** The key's requests per operation over the last 7 days (issue 29). */
    keyOperationUsage: async (ctx: CallerContext, id: string) =>
      bodyOf(gateway, apiKeyOperationUsageResponseSchema, {
        ...ctx,
        method: 'GET',
        path: `/api/ApiKeys/${segment(id)}/usage?by=operation`,
      }),
    /** This period's requests of all the user's keys against the plan quota, and per key (issue 29). */
    usage: async (ctx: CallerContext) => bodyOf(gateway, usageResponseSchema, { ...ctx, method: 'GET', path: '/api/Usage' }),
    keyUsage: async (ctx: CallerContext, id: string, days = 30) =>
      bodyOf(gateway, apiKeyUsageResponseSchema, { ...ctx, method: 'GET', path: `/api/ApiKeys/${segment(id)}/usage?days=${days}` }),

    // Plans are public to any key with read:devices; no JWT needed.
    listPlans: async (ctx: CallerContext) =>
      (await bodyOf(gateway, subscriptionPlanListResponseSchema, { ...ctx, token: null, method: 'GET', path: '/api/SubscriptionPlans' }))
        .items,
    listSubscriptions: async (ctx: CallerContext) =>
      (await bodyOf(gateway, subscriptionListResponseSchema, { ...ctx, method: 'GET', path: '/api/Subscriptions' })).items,
    subscribe: async (ctx: CallerContext, planId: string, idempotencyKey: string) =>
      bodyOf(gateway, subscriptionViewSchema, { ...ctx, method: 'POST', path: '/api/Subscriptions', body: { planId }, idempotencyKey }),
    cancelSubscription: async (ctx: CallerContext, id: string) =>
      bodyOf(gateway, subscriptionViewSchema, { ...ctx, method: 'DELETE', path: `/api/Subscriptions/${segment(id)}` }),

    /** The catalog's search (a substring of "<brand> <model>"), the dashboard's own key reading it. */
    searchCatalog: async (ctx: CallerContext, q: string, pageSize = 8) =>
      bodyOf(gateway, catalogPageSchema, {
        ...ctx,
        token: null,
        method: 'GET',
        path: `/api/Dac?q=${encodeURIComponent(q)}&pageSize=${pageSize}`,
      }),

    listDevices: async (ctx: CallerContext) => bodyOf(gateway, deviceListResponseSchema, { ...ctx, method: 'GET', path: '/api/Devices' }),
    registerDevice: async (ctx: CallerContext, device: NewDevice) => {
      const { status, data } = await gateway.send(deviceSchema, { ...ctx, method: 'POST', path: '/api/Devices/Register', body: device });
      return { device: data, created: status === 201 };
    },
  };
}

export type AccountApi = ReturnType<typeof createAccountApi>;
