import { type Endpoint, PUBLIC_IDENTITY_FORM } from '../endpoint.js';
import { loginResponseSchema } from '../identity.js';
import { completeTwoFactorLoginRequestSchema } from '../two-factor.js';

export const completeTwoFactorLoginEndpoint = {
  operationId: 'completeTwoFactorLogin',
  method: 'POST',
  path: '/api/Users/Login/TwoFactor',
  ...PUBLIC_IDENTITY_FORM,
  summary: 'Complete a two-factor sign-in',
  description:
    'The second step for accounts with two-factor sign-in: the challenge from POST /api/Users/Login (202) and either the current code of ' +
    'the authenticator app or an unused recovery code. Answers what the one-step login answers. A code already used is refused (no ' +
    'replay); a wrong code counts as a failed sign-in (the same limits: 429 with Retry-After), and a challenge allows 5 attempts within ' +
    '5 minutes. A wrong code, or an unknown, spent or expired challenge: 401 invalid_two_factor_code.',
  requestBody: completeTwoFactorLoginRequestSchema,
  success: { status: 200, description: 'Signed in', schema: loginResponseSchema },
  errors: {
    400: 'Invalid body',
    401: 'A wrong or used code, or a spent or expired challenge',
    429: 'Too many failed attempts; see Retry-After',
  },
} satisfies Endpoint;
