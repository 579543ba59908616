import { type Endpoint, PUBLIC_IDENTITY_FORM } from '../endpoint.js';
import { passwordResetRequestSchema, passwordResetRequestedSchema } from '../passwords.js';

export const requestPasswordResetEndpoint = {
  operationId: 'requestPasswordReset',
  method: 'POST',
  path: '/api/Users/PasswordReset',
  ...PUBLIC_IDENTITY_FORM,
  summary: 'E-mail a password reset link',
  description:
    'Answers 202 with the same body, in about the same time, whether or not the address has an account; when it has one, a link with ' +
    'a single-use token (valid 15 minutes, stored only as a hash) is e-mailed to it. Counted like failed sign-ins (the same limits per ' +
    'account and address, per address, per account): past them 429 with Retry-After.',
  requestBody: passwordResetRequestSchema,
  success: { status: 202, description: 'Accepted (whether or not the address has an account)', schema: passwordResetRequestedSchema },
  errors: { 400: 'Invalid body', 429: 'Too many attempts; see Retry-After' },
} satisfies Endpoint;
