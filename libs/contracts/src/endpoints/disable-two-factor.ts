import { type Endpoint, OWN_ACCOUNT_FORM } from '../endpoint.js';
import { disableTwoFactorRequestSchema, twoFactorDisabledSchema } from '../two-factor.js';

export const disableTwoFactorEndpoint = {
  operationId: 'disableTwoFactor',
  method: 'POST',
  path: '/api/Users/TwoFactor/Disable',
  ...OWN_ACCOUNT_FORM,
  summary: 'Turn two-factor sign-in off',
  description:
    'Needs the current password and a current code. The secret and the recovery codes are deleted; from then on ' +
    'POST /api/Users/Login answers the token again. A wrong password is 401 invalid_login, a wrong code 401 invalid_two_factor_code ' +
    '(both count as failed sign-ins); nothing changes then. Off already: 409 two_factor_disabled.',
  requestBody: disableTwoFactorRequestSchema,
  success: { status: 200, description: 'Off', schema: twoFactorDisabledSchema },
  errors: {
    400: 'Invalid body',
    401: 'The password or the code is wrong',
    409: 'Two-factor sign-in is off',
    429: 'Too many failed attempts; see Retry-After',
  },
} satisfies Endpoint;
