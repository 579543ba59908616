import { ANY_USER, type Endpoint } from '../endpoint.js';
import { deviceListResponseSchema } from '../devices.js';

export const listDevicesEndpoint = {
  operationId: 'listDevices',
  method: 'GET',
  path: '/api/Devices',
  scope: 'auth:login',
  user: ANY_USER,
  upstream: 'device',
  summary: "List the signed-in user's devices",
  description:
    "The caller's newest 500 devices, newest first, each with a short summary of its catalog entry. When the catalog cannot be reached " +
    "the devices still come back, with catalogEntry null and catalogUnavailable true. Nobody sees another user's devices.",
  success: { status: 200, description: 'The devices', schema: deviceListResponseSchema },
} satisfies Endpoint;
