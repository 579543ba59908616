import {
  type WebhookChangeRequest,
  type WebhookCreateRequest,
  changeWebhookEndpoint,
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookDeliveriesEndpoint,
  listWebhooksEndpoint,
  replayWebhookDeliveryEndpoint,
  rotateWebhookSecretEndpoint,
} from '@acs/contracts';
import type { GatewayClient } from './gateway-client.js';
import { answerOf, type CallerContext } from './operation-call.js';

/** The user's webhook endpoints: list, add, change, delete, rotate the secret, the delivery log and replay. */
export function webhookCalls(gateway: GatewayClient) {
  return {
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
  };
}
