import { Router, parseInput, readJsonBody, requireCaller, type AppState } from '@acs/http';
import { deviceRegisterRequestSchema, type CatalogSummary, type DeviceListResponseBody, type DeviceView } from '@acs/contracts';
import type { DeviceDeps } from '../domain/deps.js';
import type { Device } from '../domain/device.js';
import { listDevices } from '../domain/list-devices.js';
import { registerDevice } from '../domain/register-device.js';

/** Device bodies are small; anything larger is not a device registration. */
const BODY_LIMIT_BYTES = 16 * 1024;

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

/** /api/Devices: scope auth:login (list) or register:device (register), plus the user's JWT. */
export function deviceRoutes(deps: DeviceDeps): Router<AppState> {
  const router = new Router<AppState>();
  router.get('/api/Devices', async (ctx) => {
    const { devices, catalogUnavailable } = await listDevices(deps, requireCaller(ctx).userId, ctx.state.requestId);
    const body: DeviceListResponseBody = {
      items: devices.map(({ device, catalogEntry }) => toView(device, catalogEntry)),
      catalogUnavailable,
    };
    ctx.set('Cache-Control', 'no-store');
    ctx.body = body;
  });
  router.post('/api/Devices/Register', async (ctx) => {
    const { userId } = requireCaller(ctx);
    const input = parseInput(deviceRegisterRequestSchema, await readJsonBody(ctx, BODY_LIMIT_BYTES), 'body');
    const { device, created, catalogEntry } = await registerDevice(deps, userId, input, ctx.state.requestId);
    ctx.status = created ? 201 : 200;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = toView(device, catalogEntry);
  });
  return router;
}
