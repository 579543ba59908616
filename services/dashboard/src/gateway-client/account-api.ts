import {
  apiKeyOperationUsageResponseSchema,
  apiKeyUsageResponseSchema,
  loginChallengeSchema,
  loginResponseSchema,
  type RateLimits,
  type WebhookChangeRequest,
  type WebhookCreateRequest,
  apiKeyUsageEndpoint,
  cancelSubscriptionEndpoint,
  changeApiKeyEndpoint,
  changePasswordEndpoint,
  changeWebhookEndpoint,
  completePasswordResetEndpoint,
  completeTwoFactorLoginEndpoint,
  confirmTwoFactorEndpoint,
  createApiKeyEndpoint,
  createSubscriptionEndpoint,
  createWebhookEndpoint,
  deleteAccountEndpoint,
  deleteWebhookEndpoint,
  disableTwoFactorEndpoint,
  endOtherSessionsEndpoint,
  endSessionEndpoint,
  enrollTwoFactorEndpoint,
  getAccountEndpoint,
  getWebhookEndpoint,
  listApiKeysEndpoint,
  listAuditLogEndpoint,
  listCatalogEndpoint,
  listDevicesEndpoint,
  listPlansEndpoint,
  listSessionsEndpoint,
  listSubscriptionsEndpoint,
  listWebhookDeliveriesEndpoint,
  listWebhooksEndpoint,
  loginEndpoint,
  registerDeviceEndpoint,
  regenerateRecoveryCodesEndpoint,
  registerEndpoint,
  replayWebhookDeliveryEndpoint,
  requestPasswordResetEndpoint,
  resendVerificationEndpoint,
  revokeApiKeyEndpoint,
  rollApiKeyEndpoint,
  rotateWebhookSecretEndpoint,
  usageEndpoint,
  verifyEmailEndpoint,
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
  /** The browser's User-Agent: identity labels a sign-in's session with it ("Firefox on Linux"). */
  userAgent?: string;
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

/** An operation as its contract states it: the method, the path (`{id}` for a record) and the success answer's schema. */
interface Operation<S extends z.ZodType = z.ZodType> {
  method: GatewayCall['method'];
  path: string;
  success: { schema: S };
}

/** What a call adds to its operation: the record's id, a query string, a body, and the other call options. */
type CallParts = Partial<Pick<GatewayCall, 'body' | 'token' | 'idempotencyKey'>> & {
  id?: string;
  /** The path's other `{name}` parameters. */
  params?: Record<string, string>;
  query?: string;
};

/**
 * The call of one operation, its method and path taken from the contract, so the dashboard never
 * restates them. Ids come from our router, which admits only [A-Za-z0-9_-]; encoding is belt and braces.
 */
function callOf(operation: Omit<Operation, 'success'>, ctx: CallerContext, { id, params, query, ...rest }: CallParts = {}): GatewayCall {
  let path = id === undefined ? operation.path : operation.path.replace('{id}', encodeURIComponent(id));
  for (const [name, value] of Object.entries(params ?? {})) path = path.replace(`{${name}}`, encodeURIComponent(value));
  return { ...ctx, ...rest, method: operation.method, path: query === undefined ? path : `${path}?${query}` };
}

/** The answer's body, parsed with `schema`: all most calls need of it (the status only tells a device registration from a repeat). */
async function bodyOf<S extends z.ZodType>(gateway: GatewayClient, schema: S, call: GatewayCall): Promise<z.infer<S>> {
  return (await gateway.send(schema, call)).data;
}

/** The answer's body of one operation, parsed with the schema its contract gives the success answer. */
const answerOf = <S extends z.ZodType>(gateway: GatewayClient, operation: Operation<S>, ctx: CallerContext, parts?: CallParts) =>
  bodyOf(gateway, operation.success.schema, callOf(operation, ctx, parts));

/**
 * The gateway endpoints the dashboard uses, each answer parsed with the contract's zod schema.
 * The dashboard decides nothing about ownership: the user's JWT goes with every call and the
 * gateway and services answer 404 for anything that is not theirs.
 */
export function createAccountApi(gateway: GatewayClient) {
  return {
    /** The token, or for an account with two-factor sign-in the challenge its code completes (issue 32). */
    login: async (ctx: CallerContext, email: string, password: string) =>
      bodyOf(gateway, z.union([loginResponseSchema, loginChallengeSchema]), callOf(loginEndpoint, ctx, { body: { email, password } })),
    completeTwoFactorLogin: async (ctx: CallerContext, challenge: string, answer: { code: string } | { recoveryCode: string }) =>
      answerOf(gateway, completeTwoFactorLoginEndpoint, ctx, { body: { challenge, ...answer } }),
    enrollTwoFactor: async (ctx: CallerContext) => answerOf(gateway, enrollTwoFactorEndpoint, ctx),
    confirmTwoFactor: async (ctx: CallerContext, code: string) => answerOf(gateway, confirmTwoFactorEndpoint, ctx, { body: { code } }),
    disableTwoFactor: async (ctx: CallerContext, password: string, code: string) =>
      answerOf(gateway, disableTwoFactorEndpoint, ctx, { body: { password, code } }),
    regenerateRecoveryCodes: async (ctx: CallerContext, code: string) =>
      answerOf(gateway, regenerateRecoveryCodesEndpoint, ctx, { body: { code } }),
    // Any 2xx will do, whatever its body: identity may acknowledge a taken e-mail exactly like a
    // new account (nothing is shown from the answer; the sign-in that follows is the proof).
    register: async (ctx: CallerContext, account: NewAccount): Promise<void> => {
      await gateway.send(z.unknown(), callOf(registerEndpoint, ctx, { body: account }));
    },

    changePassword: async (ctx: CallerContext, currentPassword: string, newPassword: string) =>
      answerOf(gateway, changePasswordEndpoint, ctx, { body: { currentPassword, newPassword } }),
    requestPasswordReset: async (ctx: CallerContext, email: string) =>
      answerOf(gateway, requestPasswordResetEndpoint, ctx, { body: { email } }),
    completePasswordReset: async (ctx: CallerContext, token: string, newPassword: string) =>
      answerOf(gateway, completePasswordResetEndpoint, ctx, { body: { token, newPassword } }),
    getAccount: async (ctx: CallerContext) => answerOf(gateway, getAccountEndpoint, ctx),
    resendVerification: async (ctx: CallerContext) => answerOf(gateway, resendVerificationEndpoint, ctx),
    verifyEmail: async (ctx: CallerContext, token: string) => answerOf(gateway, verifyEmailEndpoint, ctx, { body: { token } }),
    listSessions: async (ctx: CallerContext) => (await answerOf(gateway, listSessionsEndpoint, ctx)).items,
    endOtherSessions: async (ctx: CallerContext) => answerOf(gateway, endOtherSessionsEndpoint, ctx),
    endSession: async (ctx: CallerContext, id: string) => answerOf(gateway, endSessionEndpoint, ctx, { id }),
    /** The user's audit trail (issue 30), newest first; `cursor` continues after an earlier page. */
    listAuditLog: async (ctx: CallerContext, query: { pageSize: number; targetType?: string; targetId?: string; cursor?: string }) =>
      answerOf(gateway, listAuditLogEndpoint, ctx, {
        query: new URLSearchParams(Object.entries(query).map(([name, value]): [string, string] => [name, String(value)])).toString(),
      }),
    listWebhooks: async (ctx: CallerContext) => (await answerOf(gateway, listWebhooksEndpoint, ctx)).items,
    getWebhook: async (ctx: CallerContext, id: string) => answerOf(gateway, getWebhookEndpoint, ctx, { id }),
    createWebhook: async (ctx: CallerContext, body: WebhookCreateRequest) => answerOf(gateway, createWebhookEndpoint, ctx, { body }),
    changeWebhook: async (ctx: CallerContext, id: string, body: WebhookChangeRequest) =>
      answerOf(gateway, changeWebhookEndpoint, ctx, { id, body }),
    deleteWebhook: async (ctx: CallerContext, id: string) => answerOf(gateway, deleteWebhookEndpoint, ctx, { id }),
    rotateWebhookSecret: async (ctx: CallerContext, id: string) => answerOf(gateway, rotateWebhookSecretEndpoint, ctx, { id }),
    webhookDeliveries: async (ctx: CallerContext, id: string, cursor: string | null) =>
      answerOf(gateway, listWebhookDeliveriesEndpoint, ctx, { id, ...(cursor ? { query: `cursor=${encodeURIComponent(cursor)}` } : {}) }),
    replayWebhookDelivery: async (ctx: CallerContext, id: string, deliveryId: string) =>
      answerOf(gateway, replayWebhookDeliveryEndpoint, ctx, { id, params: { deliveryId } }),
    /** One page of the user's audit trail, newest first; `cursor` is the nextCursor of the page before. */
    auditLogPage: async (ctx: CallerContext, cursor: string | null) =>
      answerOf(gateway, listAuditLogEndpoint, ctx, { query: `pageSize=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}` }),
    deleteAccount: async (ctx: CallerContext, password: string, code: string | undefined) =>
      answerOf(gateway, deleteAccountEndpoint, ctx, { body: code ? { password, code } : { password } }),

    listKeys: async (ctx: CallerContext) => (await answerOf(gateway, listApiKeysEndpoint, ctx)).items,
    createKey: async (
      ctx: CallerContext,
      input: {
        name: string;
        scopes: string;
        environment: 'live' | 'test';
        expiresAt?: string;
        rateLimits?: RateLimits;
        ipAllowList?: string[];
      },
    ) => answerOf(gateway, createApiKeyEndpoint, ctx, { body: input }),
    /** Name, scopes, limits and allow-list at once (rateLimits null: the deployment's default; ipAllowList null: any address). */
    changeKey: async (
      ctx: CallerContext,
      id: string,
      change: { name: string; scopes: string; rateLimits: RateLimits | null; ipAllowList: string[] | null },
    ) => answerOf(gateway, changeApiKeyEndpoint, ctx, { id, body: change }),
    revokeKey: async (ctx: CallerContext, id: string) => answerOf(gateway, revokeApiKeyEndpoint, ctx, { id }),
    rollKey: async (ctx: CallerContext, id: string, graceSeconds: number) =>
      answerOf(gateway, rollApiKeyEndpoint, ctx, { id, body: { graceSeconds } }),
    /** The key's requests per operation over the last 7 days (issue 29); the contract answers either form, this asks for one. */
    keyOperationUsage: async (ctx: CallerContext, id: string) =>
      bodyOf(gateway, apiKeyOperationUsageResponseSchema, callOf(apiKeyUsageEndpoint, ctx, { id, query: 'by=operation' })),
    /** This period's requests of all the user's keys against the plan quota, and per key (issue 29). */
    usage: async (ctx: CallerContext) => answerOf(gateway, usageEndpoint, ctx),
    keyUsage: async (ctx: CallerContext, id: string, days = 30) =>
      bodyOf(gateway, apiKeyUsageResponseSchema, callOf(apiKeyUsageEndpoint, ctx, { id, query: `days=${days}` })),

    // Plans are public to any key with read:devices; no JWT needed.
    listPlans: async (ctx: CallerContext) => (await answerOf(gateway, listPlansEndpoint, ctx, { token: null })).items,
    listSubscriptions: async (ctx: CallerContext) => (await answerOf(gateway, listSubscriptionsEndpoint, ctx)).items,
    subscribe: async (ctx: CallerContext, planId: string, idempotencyKey: string) =>
      answerOf(gateway, createSubscriptionEndpoint, ctx, { body: { planId }, idempotencyKey }),
    cancelSubscription: async (ctx: CallerContext, id: string) => answerOf(gateway, cancelSubscriptionEndpoint, ctx, { id }),

    /** The catalog's search (a substring of "<brand> <model>"), the dashboard's own key reading it. */
    searchCatalog: async (ctx: CallerContext, q: string, pageSize = 8) =>
      answerOf(gateway, listCatalogEndpoint, ctx, { token: null, query: `q=${encodeURIComponent(q)}&pageSize=${pageSize}` }),

    listDevices: async (ctx: CallerContext) => answerOf(gateway, listDevicesEndpoint, ctx),
    registerDevice: async (ctx: CallerContext, device: NewDevice) => {
      const { status, data } = await gateway.send(
        registerDeviceEndpoint.success.schema,
        callOf(registerDeviceEndpoint, ctx, { body: device }),
      );
      return { device: data, created: status === 201 };
    },
  };
}

export type AccountApi = ReturnType<typeof createAccountApi>;
