import { z } from 'zod';

// E-mail verification and the account's own view (issue 32, item 3).

export const verifyEmailRequestSchema = z.object({
  token: z.string().min(1).max(256).describe('the token from the e-mailed link'),
});

export const verifyEmailResponseSchema = z.object({
  email: z.string(),
  emailVerifiedAt: z.string().describe('ISO 8601 UTC'),
});

export const verificationSentSchema = z.object({
  message: z.string(),
});

/** GET /api/Users/Me: the account as identity holds it (never the password hash). */
export const accountViewSchema = z.object({
  id: z.number().int(),
  email: z.string(),
  firstName: z.string(),
  lastName: z.string(),
  emailVerified: z.boolean(),
  emailVerifiedAt: z.string().nullable().describe('ISO 8601 UTC; null until the address is verified'),
  twoFactorEnabled: z.boolean().describe('two-factor sign-in is on (confirmed)'),
  createdAt: z.string().describe('ISO 8601 UTC'),
});
export type AccountView = z.infer<typeof accountViewSchema>;
