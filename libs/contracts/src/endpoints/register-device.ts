import { ANY_USER, type Endpoint } from '../endpoint.js';
import { deviceRegisterRequestSchema, deviceSchema } from '../devices.js';

export const registerDeviceEndpoint = {
  operationId: 'registerDevice',
  method: 'POST',
  path: '/api/Devices/Register',
  scope: 'register:device',
  user: ANY_USER,
  upstream: 'device',
  summary: 'Register a device to the signed-in user',
  description:
    'serialNumber: 1-64 of A-Z a-z 0-9 . _ : - (case-sensitive). Unknown fields give 400. The same serial registered again by the same user ' +
    'answers 200 with the device (firmware retries are safe; name, and catalogEntryId/firmwareVersion when sent, are updated). A serial ' +
    'registered to another account gives 409. An unknown catalogEntryId gives 422; it is checked against the catalog service at once ' +
    '(503 with Retry-After when the catalog cannot be reached, nothing written).',
  requestBody: deviceRegisterRequestSchema,
  // Device bodies are small; anything larger is not a device registration.
  bodyLimitBytes: 16 * 1024,
  success: { status: 201, description: 'Device registered', schema: deviceSchema },
  alsoSucceeds: [
    {
      status: 200,
      description: 'The serial was already registered to this user: the device, updated (an idempotent repeat)',
      schema: deviceSchema,
    },
  ],
  errors: { 400: 'Invalid body', 409: 'Serial registered to another account', 422: 'Unknown catalog entry' },
} satisfies Endpoint;
