import {
  apiKeyOperationUsageResponseSchema,
  apiKeyUsageResponseSchema,
  type RateLimits,
  apiKeyUsageEndpoint,
  changeApiKeyEndpoint,
  createApiKeyEndpoint,
  listApiKeysEndpoint,
  revokeApiKeyEndpoint,
  rollApiKeyEndpoint,
  usageEndpoint,
} from '@acs/contracts';
import type { GatewayClient } from './gateway-client.js';
import { answerOf, bodyOf, callOf, type CallerContext } from './operation-call.js';

/** The user's API keys: list, create, change, revoke, roll, and their usage. */
export function keyCalls(gateway: GatewayClient) {
  return {
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
  };
}
