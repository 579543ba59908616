import { z } from 'zod';

// Two-factor sign-in with TOTP (RFC 6238) and recovery codes (issue 32, item 4).

export const twoFactorEnrollmentSchema = z.object({
  secret: z.string().describe('the TOTP secret in base32 (for typing into an authenticator app)'),
  otpauthUri: z.string().describe('otpauth://totp/... (what a QR code for an authenticator app carries)'),
});

export const twoFactorCodeRequestSchema = z.object({
  code: z.string().regex(/^[0-9]{6}$/, 'expected the 6 digits the authenticator app shows'),
});

export const twoFactorConfirmedSchema = z.object({
  recoveryCodes: z.array(z.string()).describe('10 single-use codes for when the authenticator is lost; shown this once'),
});

/** 202 of POST /api/Users/Login for an account with two-factor sign-in: no token yet. */
export const loginChallengeSchema = z.object({
  twoFactorRequired: z.literal(true),
  challenge: z.string().describe('send it with a code to POST /api/Users/Login/TwoFactor'),
  expiresAt: z.string().describe('ISO 8601 UTC; the challenge is valid 5 minutes and 5 attempts'),
});

export const completeTwoFactorLoginRequestSchema = z
  .object({
    challenge: z.string().min(1).max(256),
    code: z
      .string()
      .regex(/^[0-9]{6}$/)
      .optional(),
    recoveryCode: z.string().min(1).max(64).optional(),
  })
  .refine((body) => (body.code === undefined) !== (body.recoveryCode === undefined), {
    message: 'send either code or recoveryCode',
    path: ['code'],
  });
export type LoginChallenge = z.infer<typeof loginChallengeSchema>;

/** Turning two-factor sign-in off: the password and a current code, both (a stolen session alone cannot). */
export const disableTwoFactorRequestSchema = z.object({
  password: z.string().min(1).max(1024),
  code: z.string().regex(/^[0-9]{6}$/, 'expected the 6 digits the authenticator app shows'),
});

export const twoFactorDisabledSchema = z.object({
  twoFactorEnabled: z.literal(false),
});
