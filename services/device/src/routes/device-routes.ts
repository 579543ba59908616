import { Router, handle, type AppState } from '@acs/http';
import {
  listDevicesEndpoint,
  registerDeviceEndpoint,
  type CatalogSummary,
  type DeviceListResponseBody,
  type DeviceView,
} from '@acs/contracts';
import type { DeviceDeps } from '../domain/deps.js';
import type { Device } from '../domain/device.js';
import { listDevices } from '../domain/list-devices.js';
import { registerDevice } from '../domain/register-device.js';

function toView(device: Device, catalogEntry: CatalogSummary | null): DeviceView {
  return {
    id: device.id,
    serialNumber: device.serialNumber,
    name: device.name,
    catalogEntryId: device.catalogEntryId,
    firmwareVersion: device.firmwareVersion,
    registeredAt: device.registeredAt.toISOString(),
    catalogEntry,
  };
}

export function deviceRoutes(deps: DeviceDeps): Router<AppState> {
  const router = new Router<AppState>();
  handle(router, listDevicesEndpoint, async (ctx, { caller }) => {
    const { devices, catalogUnavailable } = await listDevices(deps, caller.userId, ctx.state.requestId);
    const body: DeviceListResponseBody = {
      items: devices.map(({ device, catalogEntry }) => toView(device, catalogEntry)),
      catalogUnavailable,
    };
    ctx.set('Cache-Control', 'no-store');
    ctx.body = body;
  });
  handle(router, registerDeviceEndpoint, async (ctx, { caller, body }) => {
    const { device, created, catalogEntry } = await registerDevice(deps, caller.userId, body, ctx.state.requestId);
    ctx.status = created ? 201 : 200;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = toView(device, catalogEntry);
  });
  return router;
}
