import { NO_FIELDS_BODY, type Endpoint, OWN_ACCOUNT } from '../endpoint.js';
import { twoFactorEnrollmentSchema } from '../two-factor.js';

export const enrollTwoFactorEndpoint = {
  operationId: 'enrollTwoFactor',
  method: 'POST',
  path: '/api/Users/TwoFactor/Enroll',
  ...OWN_ACCOUNT,
  summary: 'Start two-factor sign-in: a new TOTP secret (account dashboard)',
  description:
    'Answers a new TOTP secret (RFC 6238: SHA-1, 6 digits, 30 s) and its otpauth:// URI for a QR code. Nothing changes at sign-in until ' +
    'POST /api/Users/TwoFactor/Confirm proves the app has it; enrolling again before that replaces the secret. Already on: 409 two_factor_enabled.',
  ...NO_FIELDS_BODY,
  success: { status: 200, description: 'The secret, for the authenticator app', schema: twoFactorEnrollmentSchema },
  errors: { 400: 'A body with fields', 409: 'Two-factor sign-in is already on' },
} satisfies Endpoint;
