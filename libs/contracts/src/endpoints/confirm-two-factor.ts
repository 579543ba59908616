import { type Endpoint, OWN_ACCOUNT_FORM } from '../endpoint.js';
import { twoFactorCodeRequestSchema, twoFactorConfirmedSchema } from '../two-factor.js';

export const confirmTwoFactorEndpoint = {
  operationId: 'confirmTwoFactor',
  method: 'POST',
  path: '/api/Users/TwoFactor/Confirm',
  ...OWN_ACCOUNT_FORM,
  summary: 'Turn two-factor sign-in on with a first code',
  description:
    'A code from the enrolled secret turns two-factor sign-in on and answers 10 recovery codes, shown this once (stored as hashes). ' +
    'From then on POST /api/Users/Login answers 202 with a challenge instead of a token. A wrong code: 400 invalid_two_factor_code.',
  requestBody: twoFactorCodeRequestSchema,
  success: { status: 200, description: 'On; the recovery codes', schema: twoFactorConfirmedSchema },
  errors: { 400: 'A wrong code, or nothing enrolled', 409: 'Two-factor sign-in is already on' },
} satisfies Endpoint;
