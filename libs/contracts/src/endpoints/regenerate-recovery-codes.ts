import { type Endpoint, OWN_ACCOUNT_FORM } from '../endpoint.js';
import { twoFactorCodeRequestSchema, twoFactorConfirmedSchema } from '../two-factor.js';

export const regenerateRecoveryCodesEndpoint = {
  operationId: 'regenerateRecoveryCodes',
  method: 'POST',
  path: '/api/Users/TwoFactor/RecoveryCodes',
  ...OWN_ACCOUNT_FORM,
  summary: 'New recovery codes (the old ones stop working)',
  description:
    'Needs a current code. Answers 10 new recovery codes, shown this once (stored as hashes); every earlier one stops working. ' +
    'A wrong code: 401 invalid_two_factor_code (counted as a failed sign-in). Two-factor sign-in off: 409 two_factor_disabled.',
  requestBody: twoFactorCodeRequestSchema,
  success: { status: 200, description: 'The new recovery codes', schema: twoFactorConfirmedSchema },
  errors: {
    400: 'Invalid body',
    401: 'The code is wrong',
    409: 'Two-factor sign-in is off',
    429: 'Too many failed attempts; see Retry-After',
  },
} satisfies Endpoint;
