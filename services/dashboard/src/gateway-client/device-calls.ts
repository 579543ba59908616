import { listCatalogEndpoint, listDevicesEndpoint, registerDeviceEndpoint } from '@acs/contracts';
import type { GatewayClient } from './gateway-client.js';
import { answerOf, callOf, type CallerContext } from './operation-call.js';

export interface NewDevice {
  serialNumber: string;
  name: string;
  catalogEntryId?: number;
  firmwareVersion?: string;
}

/** The user's devices, and the catalog search that picks a device's model. */
export function deviceCalls(gateway: GatewayClient) {
  return {
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
